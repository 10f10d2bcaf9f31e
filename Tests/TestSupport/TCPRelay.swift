import NIOCore
import NIOPosix

/// The tests' TCP proxy: accepts on 127.0.0.1 (a free port), connects each client to `targetPort`
/// and forwards both ways, each direction through its own ``TCPRelay/Direction`` (rewrite the bytes,
/// watch them, freeze, throttle to a rate, or plain pass-through). The proxies of the RTMP tests
/// (`S2RewritingProxy`, `StallingProxy`, `ThrottlingProxy`) are this relay with their policies.
///
/// The client's side does not read by itself: its direction takes bytes from the sender only when
/// it can forward them (a throttled direction only while its budget allows).
public final class TCPRelay: Sendable {
    /// What one direction of a connection does with the bytes it reads from one side before and after
    /// writing them to the other. Made per connection on the relay's event loop and used there only,
    /// so its closures may keep state of their own.
    public struct Direction {
        /// Called on each read before it is forwarded, with how many bytes this direction forwarded
        /// before it; may change the bytes in place.
        public var rewrite: ((_ bytes: inout ByteBuffer, _ streamOffset: Int) -> Void)?
        /// Called with each read once it was written to the other side.
        public var forwarded: ((ByteBuffer) -> Void)?
        /// While true, this direction drops what it reads, reads no more, and passes on neither a
        /// close nor an error of its side (the other side must not learn of them).
        public var isFrozen: @Sendable () -> Bool
        /// The most bytes a second this direction forwards (a 20 ms token bucket), read on every
        /// tick; nil from then on lifts the limit for good. Nil here: as fast as both sides allow.
        public var bytesPerSecond: (@Sendable () -> Int?)?

        public init(rewrite: ((_ bytes: inout ByteBuffer, _ streamOffset: Int) -> Void)? = nil,
                    forwarded: ((ByteBuffer) -> Void)? = nil,
                    isFrozen: @escaping @Sendable () -> Bool = { false },
                    bytesPerSecond: (@Sendable () -> Int?)? = nil) {
            self.rewrite = rewrite
            self.forwarded = forwarded
            self.isFrozen = isFrozen
            self.bytesPerSecond = bytesPerSecond
        }

        /// Every byte on, unchanged, as fast as both sides allow.
        public static var passThrough: Direction { Direction() }
    }

    public let port: Int
    private let listener: Channel

    /// `receiveBufferBytes`: SO_RCVBUF of the accepted sockets (a small one makes the sender feel a
    /// stall or a limit soon). `connection` is called once a client's server side is connected, on
    /// the relay's event loop, and gives the policy of each direction.
    public init(to targetPort: Int, receiveBufferBytes: Int? = nil,
                connection: @escaping @Sendable (_ client: Channel, _ server: Channel) -> (toServer: Direction, toClient: Direction)) throws {
        var bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        if let receiveBufferBytes { bootstrap = bootstrap.serverChannelOption(.socketOption(.so_rcvbuf), value: .init(receiveBufferBytes)) }
        listener = try bootstrap
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { client in
                ClientBootstrap(group: client.eventLoop)
                    .connect(host: "127.0.0.1", port: targetPort)
                    .flatMap { server in
                        client.eventLoop.makeCompletedFuture {
                            let (toServer, toClient) = connection(client, server)
                            try server.pipeline.syncOperations.addHandler(Forwarder(peer: client, toClient))
                            try client.pipeline.syncOperations.addHandler(Forwarder(peer: server, toServer))
                        }
                    }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = listener.localAddress?.port ?? 0
    }

    /// Closes the listener; connections already made stay until either side closes.
    public func close() { try? listener.close().wait() }
}

/// One direction: copies what its channel reads to `peer` through the direction's policy.
private final class Forwarder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let peer: Channel
    private let direction: TCPRelay.Direction
    private var offset = 0
    private var budget = 0
    private var timer: RepeatedTask?

    init(peer: Channel, _ direction: TCPRelay.Direction) {
        self.peer = peer
        self.direction = direction
    }

    private var isThrottled: Bool { direction.bytesPerSecond?() != nil }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let rate = direction.bytesPerSecond, rate() != nil else {
            // The accepted side may not be active yet when the handler is added: it reads once it is.
            if context.channel.isActive { context.read() }
            return
        }
        // The repeated task's closure must be Sendable; the handler and its context are not, but the
        // task runs on their event loop, which NIOLoopBound checks on every access.
        let loopBound = NIOLoopBound((forwarder: self, context: context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: .milliseconds(20)) { task in
            let (forwarder, context) = loopBound.value
            guard let rate = rate() else {
                task.cancel()
                return context.read()
            }
            forwarder.budget = min(forwarder.budget + rate / 50, rate / 5)
            if forwarder.budget > 0 { context.read() }
        }
    }

    func channelActive(context: ChannelHandlerContext) {
        // A throttled direction reads on its timer's ticks.
        if !isThrottled { context.read() }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !direction.isFrozen() else { return }
        var bytes = unwrapInboundIn(data)
        direction.rewrite?(&bytes, offset)
        offset += bytes.readableBytes
        budget -= bytes.readableBytes
        peer.writeAndFlush(bytes, promise: nil)
        direction.forwarded?(bytes)
        if !isThrottled { context.read() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        if !direction.isFrozen() { peer.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        if !direction.isFrozen() { context.close(promise: nil) }
    }
}
