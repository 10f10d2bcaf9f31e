import Foundation

/// A source as users name it: `testpattern` (`testpattern:busy` adds grain that uses the whole
/// bitrate, for benchmarks), `file:PATH` (`file:PATH?loop`), or a camera node (`/dev/video0`,
/// `/dev/v4l/by-id/...`, `camera:0` by index, `camera:NAME` by card name), or a Raspberry Pi CSI
/// camera through rpicam-vid (`rpicam:0`, the index `rpicam-vid --list-cameras` prints).
/// `testpattern?drift_ppm=1000` simulates a camera whose clock runs 0.1 % fast.
public enum SourceSpec: Sendable, Equatable, CustomStringConvertible {
    case testPattern
    case busyTestPattern
    case driftingTestPattern(driftPPM: Double)
    case file(path: String, loops: Bool)
    case camera(String)
    case rpicam(index: Int)

    /// Prefix of camera selectors by index or card name (`camera:0`, `camera:HD Pro Webcam`).
    public static let cameraPrefix = "camera:"
    /// Prefix of Raspberry Pi CSI cameras by libcamera index (`rpicam:0`).
    public static let rpicamPrefix = "rpicam:"

    public init(parsing text: String) throws(CaptureError) {
        if text == "testpattern" || text == "test" {
            self = .testPattern
        } else if text == "testpattern:busy" {
            self = .busyTestPattern
        } else if text.hasPrefix("testpattern" + SimulatedDrift.option) {
            self = .driftingTestPattern(driftPPM: try SimulatedDrift.split(text).driftPPM ?? 0)
        } else if text.hasPrefix("file:") {
            var path = String(text.dropFirst("file:".count))
            let loops = path.hasSuffix("?loop")
            if loops { path.removeLast("?loop".count) }
            guard !path.isEmpty else { throw .unknownSource(text) }
            self = .file(path: path, loops: loops)
        } else if text.hasPrefix(Self.rpicamPrefix) {
            guard let index = Int(text.dropFirst(Self.rpicamPrefix.count)), index >= 0 else { throw .unknownSource(text) }
            self = .rpicam(index: index)
        } else if text.hasPrefix("/dev/") || (text.hasPrefix(Self.cameraPrefix) && text.count > Self.cameraPrefix.count) {
            self = .camera(text)
        } else {
            throw .unknownSource(text)
        }
    }

    /// A Raspberry Pi CSI camera (its controls are rpicam-vid options, not V4L2 controls).
    public var isRpicam: Bool {
        if case .rpicam = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .testPattern: return "testpattern"
        case .busyTestPattern: return "testpattern:busy"
        case let .driftingTestPattern(driftPPM): return "testpattern\(SimulatedDrift.option)\(driftPPM == driftPPM.rounded() ? "\(Int(driftPPM))" : "\(driftPPM)")"
        case let .file(path, loops): return "file:\(path)\(loops ? "?loop" : "")"
        case let .camera(path): return path
        case let .rpicam(index): return "\(Self.rpicamPrefix)\(index)"
        }
    }
}
