import CV4L2
import Foundation

/// An open V4L2 device node: the ioctls livepush needs, with errno turned into ``CaptureError``s
/// that tell the user what to do.
///
/// Every request goes through libc's `ioctl` (see the CV4L2 shim), so an LD_PRELOAD simulated
/// camera sees it exactly as it would see v4l2-ctl's. One thread uses a device at a time.
public final class V4L2Device {
    /// The name the user gave (`/dev/v4l/by-id/...`), used in messages.
    public let path: String
    /// The node after following symlinks (`/dev/video0`), resolved at open so a re-open after an
    /// unplug finds the camera under its stable name even if it came back as another node.
    public let nodePath: String
    let fd: Int32
    private var isOpen = true

    /// Opens the node read-write and non-blocking (DQBUF is only called after poll says so).
    public init(path: String) throws(CaptureError) {
        self.path = path
        nodePath = V4L2Device.resolveSymlinks(path)
        let fd = Glibc.open(nodePath, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            switch code {
            case EACCES, EPERM: throw .permissionDenied(path: path)
            case EBUSY: throw .deviceBusy(path: path)
            case ENOENT, ENODEV, ENXIO: throw .deviceNotFound(path: path)
            default: throw .deviceError(path: path, operation: "open", errno: code, message: String(cString: strerror(code)))
            }
        }
        self.fd = fd
    }

    deinit { close() }

    /// Closes the node; later requests fail with EBADF. Safe to call twice.
    public func close() {
        guard isOpen else { return }
        isOpen = false
        _ = Glibc.close(fd)
    }

    /// Issues a request; returns 0 or the errno, for callers that treat some errors as answers
    /// (EINVAL ends every VIDIOC_ENUM_* loop).
    func request<T>(_ request: UInt, _ argument: inout T) -> Int32 {
        withUnsafeMutablePointer(to: &argument) { pointer in
            lp_v4l2_ioctl(fd, request, UnsafeMutableRawPointer(pointer)) == 0 ? 0 : errno
        }
    }

    /// Issues a request that must succeed, naming it in the error.
    func perform<T>(_ request: UInt, _ name: String, _ argument: inout T) throws(CaptureError) {
        let code = self.request(request, &argument)
        guard code != 0 else { return }
        throw error(code, operation: name)
    }

    /// The user-facing error for an errno from `operation` on this device.
    func error(_ code: Int32, operation: String) -> CaptureError {
        switch code {
        case ENODEV, ENXIO: return .deviceUnplugged(path: path)
        case EBUSY: return .deviceBusy(path: path)
        default: return .deviceError(path: path, operation: operation, errno: code, message: String(cString: strerror(code)))
        }
    }

    /// `VIDIOC_QUERYCAP`.
    public func capabilities() throws(CaptureError) -> V4L2Capabilities {
        var raw = v4l2_capability()
        try perform(lp_VIDIOC_QUERYCAP(), "VIDIOC_QUERYCAP", &raw)
        return V4L2Capabilities(raw)
    }

    /// Follows symlinks (udev's /dev/v4l/by-id and by-path names are relative links) without
    /// realpath(3), which would stat the target: a simulated node exists only to intercepted calls.
    static func resolveSymlinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return current }
            current = target.hasPrefix("/") ? target
                : URL(fileURLWithPath: current).deletingLastPathComponent().appendingPathComponent(target).standardized.path
        }
        return current
    }
}
