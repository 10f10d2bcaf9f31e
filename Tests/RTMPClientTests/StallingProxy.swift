import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on 127.0.0.1 that, on `stall()`, stops forwarding in both directions on every
/// connection open at that moment without closing either side: the sender's socket stays open
/// and writable until the buffers fill, the server sees a publisher that went quiet. Connections
/// made after the stall forward normally (a fresh path to the same server).
final class StallingProxy: Sendable {
    let port: Int
    private let listener: Channel
    private let state: ProxyState

    /// `receiveBufferBytes`: SO_RCVBUF of the client's side (a small one fills soon once frozen: a black hole).
    init(to targetPort: Int, receiveBufferBytes: Int? = nil) throws {
        let state = ProxyState()
        self.state = state
        listener = try LoopbackTCPRelay.listen(to: targetPort, receiveBufferBytes: receiveBufferBytes) { client, server in
            let generation = state.open(client, server)
            try server.pipeline.syncOperations.addHandler(Relay(peer: client, frozen: { state.isFrozen(generation) }))
            try client.pipeline.syncOperations.addHandler(Relay(peer: server, frozen: { state.isFrozen(generation) }))
        }
        port = listener.localAddress?.port ?? 0
    }

    /// Freezes every connection open now; a read already under way is dropped, never forwarded.
    func stall() { state.freeze() }

    /// Connections made so far (each a client and its server side).
    var connectionCount: Int { state.connectionCount }

    /// Closes the listener and every connection, frozen or not.
    func close() {
        try? listener.close().wait()
        for channel in state.takeChannels() { try? channel.close().wait() }
    }
}

/// Which connections are frozen (those opened before the last `freeze`), and every channel to close.
private final class ProxyState: Sendable {
    private struct Inner {
        var generation = 0
        var channels: [Channel] = []
    }
    private let inner = Mutex(Inner())

    func open(_ client: Channel, _ server: Channel) -> Int {
        inner.withLock { $0.channels += [client, server]; return $0.generation }
    }
    func isFrozen(_ generation: Int) -> Bool { inner.withLock { $0.generation > generation } }
    func freeze() { inner.withLock { $0.generation += 1 } }
    var connectionCount: Int { inner.withLock { $0.channels.count / 2 } }
    func takeChannels() -> [Channel] { inner.withLock { state in defer { state.channels = [] }; return state.channels } }
}

/// Copies reads to `peer` and asks for the next read, until frozen: then it drops what it read,
/// reads no more, and ignores a close (the other side must not learn of it).
private final class Relay: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let peer: Channel
    private let frozen: @Sendable () -> Bool

    init(peer: Channel, frozen: @escaping @Sendable () -> Bool) {
        self.peer = peer
        self.frozen = frozen
    }

    // The accepted side may not be active yet when the relay is added: read once it is.
    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { context.read() }
    }

    func channelActive(context: ChannelHandlerContext) {
        context.read()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !frozen() else { return }
        peer.writeAndFlush(unwrapInboundIn(data), promise: nil)
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !frozen() { peer.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if !frozen() { context.close(promise: nil) }
    }
}
