import Config
import FuzzSupport

/// The YAML config `serve`, `stream --config` and `check-config` load (and reload on SIGHUP): Yams'
/// composer, then every key's validation (sizes, rates, durations, URLs, outputs, renditions,
/// overlays, limits). A file either loads or throws a `ConfigError` that names the line and key;
/// nothing may trap on an out-of-range number.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzConfigYAML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let text = FuzzInput.string(data, size) else { return 0 }
    // No secret files and no environment: what the fuzzer explores is the YAML, not the host.
    let parser = ConfigParser(file: "fuzz.yaml", environment: [:], readFile: { _ in nil })
    if let config = try? parser.parse(text) {
        fuzzRequire(!config.cameras.isEmpty, "a config without cameras loaded")
    }
    return 0
}

// Last: the globals above are initialised in order as top-level code runs, and this never returns.
runLibFuzzer(fuzzConfigYAML)
