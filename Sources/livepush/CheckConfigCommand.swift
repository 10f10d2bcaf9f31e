import ArgumentParser
import Config

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
        print("\(file): OK — listen \(config.tls == nil ? "http" : "https")://\(config.listen), api token \(config.apiToken.map { "\($0)" } ?? "none"), "
              + "viewer token \(config.viewerToken.map { "\($0)" } ?? "none")")
        for camera in config.cameras {
            print("  camera \(camera.id): \(camera.source) \(camera.size) @ \(camera.framesPerSecond) fps, \(camera.encoder.name) \(camera.encoder.bitrateBitsPerSecond / 1000)k keyint \(camera.encoder.keyframeIntervalSeconds) s \(camera.encoder.profile.rawValue)"
                  + (camera.onDemand.map { ", on demand (idle \($0.idleSeconds) s after the last viewer or output)" } ?? ""))
            for rendition in camera.renditions {
                print("    rendition \(rendition.name): \(rendition.size) @ \(rendition.framesPerSecond) fps, \(rendition.encoder.name) \(rendition.encoder.bitrateBitsPerSecond / 1000)k keyint \(rendition.encoder.keyframeIntervalSeconds) s \(rendition.encoder.preset)")
            }
            for output in camera.outputs {
                let rendition = !output.tracks.isEmpty ? " (tracks \(output.tracks.joined(separator: ", ")), multitrack)"
                    : camera.renditions.isEmpty ? "" : " (rendition \(camera.effectiveRenditions[camera.renditionIndex(of: output)].name))"
                let stopped = output.startsWithCamera ? "" : ", starts stopped (start it through the API)"
                print("    \(output.id): \(output.kind.rawValue) → \(output.maskedTarget)\(rendition)\(stopped)")
            }
        }
    }
}
