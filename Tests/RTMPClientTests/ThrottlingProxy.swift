import NIOCore
import NIOPosix

/// A TCP proxy on 127.0.0.1 that forwards client → server at most `bytesPerSecond` (server → client freely),
/// standing in for a thin uplink. It reads from the client only when its budget allows and keeps its own
/// receive buffer small, so the sender feels the limit within a second instead of filling megabytes of
/// loopback buffers.
final class ThrottlingProxy: Sendable {
    let port: Int
    private let channel: Channel

    init(to targetPort: Int, bytesPerSecond: Int) throws {
        channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.socketOption(.so_rcvbuf), value: 8192)
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { client in
                ClientBootstrap(group: client.eventLoop)
                    .connect(host: "127.0.0.1", port: targetPort)
                    .flatMap { server in
                        client.eventLoop.makeCompletedFuture {
                            try server.pipeline.syncOperations.addHandler(Relay(peer: client, bytesPerSecond: nil))
                            try client.pipeline.syncOperations.addHandler(Relay(peer: server, bytesPerSecond: bytesPerSecond))
                        }
                    }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress?.port ?? 0
    }

    func close() { try? channel.close().wait() }
}

/// Copies reads to `peer`; with a rate, reads only while the 20 ms token bucket has budget.
private final class Relay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let peer: Channel
    private let bytesPerSecond: Int?
    private var budget = 0
    private var timer: RepeatedTask?

    init(peer: Channel, bytesPerSecond: Int?) {
        self.peer = peer
        self.bytesPerSecond = bytesPerSecond
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let rate = bytesPerSecond else { return context.read() }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: .milliseconds(20)) { [self] _ in
            budget = min(budget + rate / 50, rate / 5)
            if budget > 0 { loopBound.value.read() }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        budget -= bytes.readableBytes
        peer.writeAndFlush(bytes, promise: nil)
        if bytesPerSecond == nil { context.read() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        peer.close(promise: nil)
    }
}
