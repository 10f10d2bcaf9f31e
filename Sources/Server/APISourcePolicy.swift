import Capture
import Foundation
import Engine

/// What `POST /api/cameras/{id}/source` may switch a camera to: the test patterns, the camera's own
/// configured source, the V4L2 cameras `livepush devices` lists, by index, name or device node,
/// and CSI cameras (`rpicam:N`). Never a path the client names: the service would open it with
/// its own rights (a file, or any device node).
package enum APISourcePolicy {
    /// `listed`: the camera nodes `livepush devices` shows (a parameter so tests fix it).
    package static func check(_ spec: SourceSpec, configured: SourceSpec,
                      listed: () -> [String] = { V4L2Discovery.cameras().cameras.map(\.path) }) throws(EngineError) {
        if spec == configured { return }
        switch spec {
        case .testPattern, .busyTestPattern, .driftingTestPattern:
            return
        case .rpicam:
            return // a CSI camera by index: rpicam-vid opens only cameras libcamera lists
        case .file:
            throw .badRequest("files cannot be chosen over the API (the service would open any path it is sent): put the file in the config as the camera's source")
        case let .camera(selector):
            guard isCameraSelector(selector) else {
                throw .badRequest("'\(selector)' is not a camera: give camera:INDEX, camera:NAME, /dev/videoN or a /dev/v4l/by-id or by-path name")
            }
            let node = (try? V4L2Discovery.resolve(selector)).map(realPath)
            guard let node, listed().map(realPath).contains(node) else {
                throw .badRequest("unknown camera '\(selector)': choose one that `livepush devices` lists, or a test pattern")
            }
        }
    }

    /// A device node with its udev links followed (`/dev/v4l/by-id/…` → `/dev/video0`).
    private static func realPath(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }

    /// camera:INDEX or camera:NAME (resolved against the cameras V4L2 lists), /dev/videoN, or a
    /// udev link under /dev/v4l/ without any `..`.
    package static func isCameraSelector(_ selector: String) -> Bool {
        if selector.hasPrefix("camera:") { return true }
        if selector.hasPrefix("/dev/video"), Int(selector.dropFirst("/dev/video".count)) != nil { return true }
        let linkDirectories = ["/dev/v4l/by-id/", "/dev/v4l/by-path/"]
        guard let directory = linkDirectories.first(where: { selector.hasPrefix($0) }) else { return false }
        let name = selector.dropFirst(directory.count)
        return !name.isEmpty && !name.contains("/") && name != ".."
    }
}
