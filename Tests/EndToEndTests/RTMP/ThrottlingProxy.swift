import Synchronization
import TestSupport

/// A TCP proxy on 127.0.0.1 that forwards client → server at most `bytesPerSecond` (server → client freely),
/// standing in for a thin uplink. It reads from the client only when its budget allows and keeps its own
/// receive buffer small, so the sender feels the limit within a second instead of filling megabytes of
/// loopback buffers. `lift()` ends the limit mid-connection (the link recovers).
final class ThrottlingProxy: Sendable {
    private let relay: TCPRelay
    private let rate: Rate

    var port: Int { relay.port }

    init(to targetPort: Int, bytesPerSecond: Int) throws {
        let rate = Rate(bytesPerSecond)
        self.rate = rate
        relay = try TCPRelay(to: targetPort, receiveBufferBytes: 8192) { _, _ in
            (toServer: TCPRelay.Direction(bytesPerSecond: { rate.bytesPerSecond }), toClient: .passThrough)
        }
    }

    /// From now on, forwards as fast as both sides allow.
    func lift() { rate.lift() }

    func close() { relay.close() }
}

/// The limit both the test and the relay's event loop read.
private final class Rate: Sendable {
    private let limit: Mutex<Int?>
    init(_ bytesPerSecond: Int) { limit = Mutex(bytesPerSecond) }
    var bytesPerSecond: Int? { limit.withLock { $0 } }
    func lift() { limit.withLock { $0 = nil } }
}
