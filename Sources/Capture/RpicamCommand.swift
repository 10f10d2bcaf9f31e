import Foundation
import MediaCore

/// The rpicam-vid command line for one CSI camera: raw I420 on stdout, no preview, forever.
///
/// rpicam-vid can only flip (`--rotation 180` is a horizontal plus vertical flip), so 180° and the
/// mirror go to it, and 90°/270° stay on the frames as rotation metadata for livepush to apply
/// with libyuv, as for V4L2 cameras.
public struct RpicamCommand: Sendable, Equatable {
    /// Programs tried in order: rpicam-apps' name, then its name before Raspberry Pi OS bookworm.
    public static let programNames = ["rpicam-vid", "libcamera-vid"]

    public var cameraIndex: Int
    public var config: CaptureConfig
    public var controls: [String: String]

    public init(cameraIndex: Int, config: CaptureConfig, controls: [String: String] = [:]) {
        self.cameraIndex = cameraIndex
        self.config = config
        self.controls = controls
    }

    /// The first of ``programNames`` on PATH (an executable file), or nil.
    public static func resolveExecutable(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let directories = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        for name in programNames {
            for directory in directories where !directory.isEmpty {
                let candidate = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }

    /// The rotation left on the frames for livepush to apply (rpicam-vid does 180° itself).
    public var frameRotation: VideoRotation {
        config.rotation == .clockwise180 ? .none : config.rotation
    }

    /// Arguments after the program name.
    public func arguments() throws(CaptureError) -> [String] {
        let fps = config.framesPerSecond.rounded() == config.framesPerSecond
            ? String(Int(config.framesPerSecond)) : String(config.framesPerSecond)
        var arguments = ["-t", "0", "--codec", "yuv420", "-o", "-", "--nopreview",
                         "--camera", String(cameraIndex),
                         "--width", String(config.size.width), "--height", String(config.size.height),
                         "--framerate", fps]
        // 180° is both flips; with the mirror on top, only the vertical one remains.
        switch (config.rotation == .clockwise180, config.mirror) {
        case (true, true): arguments += ["--vflip"]
        case (true, false): arguments += ["--rotation", "180"]
        case (false, true): arguments += ["--hflip"]
        case (false, false): break
        }
        return arguments + (try RpicamControls.arguments(for: controls))
    }
}
