import Foundation

/// A source as users name it: `testpattern` (`testpattern:busy` adds grain that uses the whole
/// bitrate, for benchmarks), `file:PATH` (`file:PATH?loop`), or a camera node (`/dev/video0`,
/// `/dev/v4l/by-id/...`, `camera:0` by index, `camera:NAME` by card name).
public enum SourceSpec: Sendable, Equatable, CustomStringConvertible {
    case testPattern
    case busyTestPattern
    case file(path: String, loops: Bool)
    case camera(String)

    /// Prefix of camera selectors by index or card name (`camera:0`, `camera:HD Pro Webcam`).
    public static let cameraPrefix = "camera:"

    public init(parsing text: String) throws(CaptureError) {
        if text == "testpattern" || text == "test" {
            self = .testPattern
        } else if text == "testpattern:busy" {
            self = .busyTestPattern
        } else if text.hasPrefix("file:") {
            var path = String(text.dropFirst("file:".count))
            let loops = path.hasSuffix("?loop")
            if loops { path.removeLast("?loop".count) }
            guard !path.isEmpty else { throw .unknownSource(text) }
            self = .file(path: path, loops: loops)
        } else if text.hasPrefix("/dev/") || (text.hasPrefix(Self.cameraPrefix) && text.count > Self.cameraPrefix.count) {
            self = .camera(text)
        } else {
            throw .unknownSource(text)
        }
    }

    public var description: String {
        switch self {
        case .testPattern: return "testpattern"
        case .busyTestPattern: return "testpattern:busy"
        case let .file(path, loops): return "file:\(path)\(loops ? "?loop" : "")"
        case let .camera(path): return path
        }
    }
}
