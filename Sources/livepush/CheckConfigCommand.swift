import ArgumentParser
import Config
import Server

/// `livepush check-config FILE`: validates a config as `serve` would, without starting anything;
/// prints what it would run (secrets masked) or the first error with file, line and key.
struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check-config", abstract: "Validate a livepush YAML config without running it.")

    @Argument(help: "The YAML config file.")
    var file: String

    func run() throws {
        let config: LivepushConfig
        do { config = try ConfigParser.load(path: file) } catch {
            throw ValidationError("\(error)")
        }
        // What `serve` registers (RTMP, RTP, WHIP, WHEP besides recordings).
        let builders = ServeOutputs.builders(whep: WHEPRegistry(udpHost: config.listen.host))
        var unavailable: [String] = []
        print("\(file): OK — listen \(config.listen), api token \(config.apiToken.map { "\($0)" } ?? "none")")
        for camera in config.cameras {
            print("  camera \(camera.id): \(camera.source) \(camera.size) @ \(camera.framesPerSecond) fps, \(camera.encoder.name) \(camera.encoder.bitrateBitsPerSecond / 1000)k keyint \(camera.encoder.keyframeIntervalSeconds) s \(camera.encoder.profile.rawValue)")
            for output in camera.outputs {
                let available = builders.isAvailable(output.kind)
                print("    \(output.id): \(output.kind.rawValue) → \(output.maskedTarget)\(available ? "" : "  (not available in this build)")")
                if !available { unavailable.append("\(camera.id)/\(output.id)") }
            }
        }
        if !unavailable.isEmpty {
            throw ValidationError("\(file): valid, but these outputs are not available in this build and `serve` would refuse them: \(unavailable.joined(separator: ", "))")
        }
    }
}
