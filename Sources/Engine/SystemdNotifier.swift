import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// sd_notify(3) without libsystemd: one datagram per message to the AF_UNIX socket systemd names
/// in `NOTIFY_SOCKET` (a path, or an abstract name starting with '@'). With `Type=notify`,
/// `READY=1` tells systemd the pipeline is up; with `WatchdogSec=`, `WATCHDOG=1` must come more
/// often than `WATCHDOG_USEC` or systemd restarts the service. Without the variable every call is
/// a no-op, so livepush runs the same outside systemd.
public struct SystemdNotifier: Sendable {
    public let socketPath: String?
    /// Half of systemd's watchdog timeout, as sd_watchdog_enabled(3) advises; nil when not asked for.
    public let watchdogIntervalSeconds: Double?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        let pidMatches = environment["WATCHDOG_PID"].map { $0 == "\(getpid())" } ?? true
        if pidMatches, let usec = environment["WATCHDOG_USEC"].flatMap(Double.init), usec > 0 {
            watchdogIntervalSeconds = usec / 1e6 / 2
        } else {
            watchdogIntervalSeconds = nil
        }
    }

    /// Sends `message` (e.g. "READY=1\nSTATUS=streaming"); false when there is no socket or the send failed.
    @discardableResult
    public func notify(_ message: String) -> Bool {
        guard let socketPath else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard pathBytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: pathBytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (pathBytes.first == 0 ? 0 : 1))
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                sendto(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL), sockaddrPointer, length)
            }
        }
        return sent == bytes.count
    }
}
