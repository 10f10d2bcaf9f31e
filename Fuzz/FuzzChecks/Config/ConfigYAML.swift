import Config
import FuzzCore

/// The YAML config `serve`, `stream --config` and `check-config` load (and reload on SIGHUP): Yams'
/// composer, then every key's validation (sizes, rates, durations, URLs, outputs, renditions,
/// overlays, limits). A file either loads or throws a `ConfigError` that names the line and key;
/// nothing may trap on an out-of-range number.
func checkConfigYAML(_ input: [UInt8]) throws(FuzzInvariantBroken) {
    guard let text = FuzzInput.string(input) else { return }
    // No secret files and no environment: what the fuzzer explores is the YAML, not the host.
    let parser = ConfigParser(file: "fuzz.yaml", environment: [:], readFile: { _ in nil })
    if let config = try? parser.parse(text) {
        try fuzzRequire(!config.cameras.isEmpty, "a config without cameras loaded")
    }
    return
}

extension FuzzTarget {
    public static let configYAML = FuzzTarget(name: "FuzzConfigYAML", check: checkConfigYAML)
}
