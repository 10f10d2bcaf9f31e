import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on 127.0.0.1 that forwards client → server at most `bytesPerSecond` (server → client freely),
/// standing in for a thin uplink. It reads from the client only when its budget allows and keeps its own
/// receive buffer small, so the sender feels the limit within a second instead of filling megabytes of
/// loopback buffers. `lift()` ends the limit mid-connection (the link recovers).
final class ThrottlingProxy: Sendable {
    let port: Int
    private let channel: Channel
    private let rate: Rate

    init(to targetPort: Int, bytesPerSecond: Int) throws {
        let rate = Rate(bytesPerSecond)
        self.rate = rate
        channel = try LoopbackTCPRelay.listen(to: targetPort, receiveBufferBytes: 8192) { client, server in
            try server.pipeline.syncOperations.addHandler(Relay(peer: client, rate: { nil }))
            try client.pipeline.syncOperations.addHandler(Relay(peer: server, rate: { rate.bytesPerSecond }))
        }
        port = channel.localAddress?.port ?? 0
    }

    /// From now on, forwards as fast as both sides allow.
    func lift() { rate.lift() }

    func close() { try? channel.close().wait() }
}

/// The limit both the test and the relay's event loop read.
private final class Rate: Sendable {
    private let limit: Mutex<Int?>
    init(_ bytesPerSecond: Int) { limit = Mutex(bytesPerSecond) }
    var bytesPerSecond: Int? { limit.withLock { $0 } }
    func lift() { limit.withLock { $0 = nil } }
}

/// Copies reads to `peer`; while `rate` gives a limit, reads only while the 20 ms token bucket has budget.
private final class Relay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let peer: Channel
    private let rate: @Sendable () -> Int?
    private var budget = 0
    private var timer: RepeatedTask?

    init(peer: Channel, rate: @escaping @Sendable () -> Int?) {
        self.peer = peer
        self.rate = rate
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard rate() != nil else { return context.read() }
        // The repeated task's closure must be Sendable; the handler and its context are not, but the
        // task runs on their event loop, which NIOLoopBound checks on every access.
        let loopBound = NIOLoopBound((relay: self, context: context), eventLoop: context.eventLoop)
        let rate = rate
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: .milliseconds(20)) { task in
            let (relay, context) = loopBound.value
            guard let rate = rate() else {
                task.cancel()
                return context.read()
            }
            relay.budget = min(relay.budget + rate / 50, rate / 5)
            if relay.budget > 0 { context.read() }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        budget -= bytes.readableBytes
        peer.writeAndFlush(bytes, promise: nil)
        if rate() == nil { context.read() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        peer.close(promise: nil)
    }
}
