import ArgumentParser
import Capture
import Foundation

/// `livepush devices`: the cameras on this machine (and simulated ones under scripts/sim-camera)
/// with every format, size and frame rate, so users can pick `--source`, `--size` and `--fps`;
/// on a Raspberry Pi also the CSI cameras `rpicam-vid --list-cameras` reports, as `rpicam:N`.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "devices", abstract: "List cameras with their formats, sizes and frame rates, and audio inputs.")

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func run() async throws {
        let (cameras, unavailable) = V4L2Discovery.cameras()
        let csiCameras: [RpicamCameraInfo], csiError: String?
        do { (csiCameras, csiError) = (try RpicamDiscovery.cameras(), nil) } catch { (csiCameras, csiError) = ([], "\(error)") }
        if json {
            struct Listing: Encodable {
                var cameras: [V4L2DeviceInfo]
                var csiCameras: [RpicamCameraInfo]
                var unavailable: [[String: String]]
                var audioInputs: [String]
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let listing = Listing(cameras: cameras, csiCameras: csiCameras, unavailable: unavailable.map { ["path": $0.path, "error": "\($0.error)"] },
                                  audioInputs: AudioCapturer.availableDevices())
            print(String(decoding: try encoder.encode(listing), as: UTF8.self))
            return
        }
        if cameras.isEmpty && unavailable.isEmpty && csiCameras.isEmpty {
            print("no cameras found (no /dev/video* capture nodes); try scripts/sim-camera -- livepush devices")
        }
        for camera in cameras {
            print("camera:\(camera.index)  \(camera.path)  \(camera.capabilities.card)  (\(camera.capabilities.driver), \(camera.capabilities.busInfo))")
            for format in camera.formats {
                let usable = format.fourcc.pixelFormat == nil ? "  (not supported by livepush)" : ""
                print("    \(format.fourcc)  \(format.description)\(format.stepwise ? " (stepwise range, common sizes shown)" : "")\(usable)")
                for mode in format.modes {
                    let rates = mode.framesPerSecond.map { V4L2Negotiation.describe(framesPerSecond: $0) }.joined(separator: ", ")
                    print("        \(mode.size)".padding(toLength: 20, withPad: " ", startingAt: 0) + "\(rates) fps")
                }
            }
        }
        for (path, error) in unavailable { print("\(path): \(error)") }
        printCSI(csiCameras, error: csiError)
        let audio = AudioCapturer.availableDevices()
        print(audio.isEmpty ? "no audio inputs found (ALSA)" : "audio inputs (use --audio alsa:NAME):")
        for name in audio { print("    \(name)") }
    }

    /// CSI cameras as `rpicam:N`, with the sensor modes rpicam-vid reported.
    private func printCSI(_ cameras: [RpicamCameraInfo], error: String?) {
        if let error { print("CSI cameras: \(error)") }
        for camera in cameras {
            print("rpicam:\(camera.index)  \(camera.model)  [\(camera.sensor)]  (\(camera.id))")
            for mode in camera.modes {
                let fps = mode.maximumFramesPerSecond.map { String(format: "%.2f", $0) } ?? "?"
                print("    \(mode.pixelFormat)  \(mode.size)".padding(toLength: 34, withPad: " ", startingAt: 0) + "up to \(fps) fps, crop \(mode.crop)")
            }
        }
    }
}
