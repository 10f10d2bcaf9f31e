import NIOCore
import NIOPosix
import RTMP
import Synchronization

/// A TCP proxy on 127.0.0.1 in front of an RTMP server that replaces S2 (bytes 1537..<3073 of what the
/// server sends) with random bytes, as a server answering with the digest (FP9) handshake looks to a
/// client that sent a plain C1: its S2 is no echo of C1. Everything else passes unchanged.
final class S2RewritingProxy: Sendable {
    let port: Int
    private let channel: Channel
    private let rewrites = Counter()

    init(to targetPort: Int) throws {
        let rewrites = rewrites
        channel = try LoopbackTCPRelay.listen(to: targetPort) { client, server in
            try server.pipeline.syncOperations.addHandler(Forwarder(peer: client, rewriteS2: { rewrites.value.add(1, ordering: .relaxed) }))
            try client.pipeline.syncOperations.addHandler(Forwarder(peer: server, rewriteS2: nil))
        }
        port = channel.localAddress?.port ?? 0
    }

    /// How many connections had their S2 replaced (the whole of it went through the proxy).
    var rewrittenHandshakes: Int { rewrites.value.load(ordering: .relaxed) }

    func close() { try? channel.close().wait() }
}

private final class Counter: Sendable {
    let value = Atomic<Int>(0)
}

/// Copies reads to `peer`; on the server's side, overwrites S2 as it passes.
private final class Forwarder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private static let s2Range = (1 + RTMPHandshake.packetSize)..<(1 + 2 * RTMPHandshake.packetSize)
    private let peer: Channel
    private let rewriteS2: (@Sendable () -> Void)?
    private var offset = 0

    init(peer: Channel, rewriteS2: (@Sendable () -> Void)?) {
        self.peer = peer
        self.rewriteS2 = rewriteS2
    }

    // The client's side does not read by itself (autoRead off until its server is connected).
    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { context.read() }
    }

    func channelActive(context: ChannelHandlerContext) {
        context.read()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if let rewriteS2, offset < Self.s2Range.upperBound {
            let start = offset, count = bytes.readableBytes
            for position in max(start, Self.s2Range.lowerBound)..<min(start + count, Self.s2Range.upperBound) {
                bytes.setInteger(UInt8.random(in: 0...255), at: bytes.readerIndex + position - start)
            }
            if start + count >= Self.s2Range.upperBound { rewriteS2() }
        }
        offset += bytes.readableBytes
        peer.writeAndFlush(bytes, promise: nil)
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) { peer.close(promise: nil) }
}
