import Logging
import NIOCore
import NIOHTTPTypes

/// Keeps every connection moving, so a client cannot hold one of `limits.max_connections` without
/// doing its part. Sits after HTTP decoding in Hummingbird's HTTP/1 pipeline.
/// - **Reading**: a client must send a whole request (head and body) within `timeout` of
///   connecting or of its previous answer: a slow client that trickles headers (slowloris), a silent
///   one and an idle keep-alive all free their connection.
/// - **Writing**: an answer must keep leaving: each part written must reach the socket within
///   `timeout` of the one before. Hummingbird's writer waits without limit on a socket that is not
///   writable, so a client that never reads its answers would otherwise hold the connection forever.
/// - **Pipelining**: a client may be at most ``maximumRequestsAhead`` requests ahead of its answers;
///   one that sends more without reading is closed at once (browsers do not pipeline).
/// - **Kernel memory**: the socket's send buffer is fixed at ``sendBufferBytes`` (Linux would grow it
///   to 4 MiB for a client that does not read: 128 such clients would pin 512 MiB of a Pi's memory),
///   which is also what makes such a client's answers stall, and its deadline fire, soon.
/// The time a handler takes to start its answer is not counted (a snapshot may wake a camera).
final class ConnectionProgressHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Requests a client may send before reading the answers to the earlier ones.
    static let maximumRequestsAhead = 16
    /// SO_SNDBUF (the kernel doubles it): enough for a dashboard page or a snapshot in one go.
    static let sendBufferBytes = 128 * 1024

    private enum Deadline { case none, reading, writing }

    private let timeout: TimeAmount
    private let logger: Logger
    private var deadline: Scheduled<Void>?
    private var deadlineKind = Deadline.none
    /// Requests read whole whose answers have not been written to their end.
    private var requestsAhead = 0
    /// Answer parts handed to the channel that have not reached the socket yet.
    private var writesPending = 0
    /// Closed by this handler: what is still read is dropped, and the reason is logged once.
    private var closing = false

    init(timeout: TimeAmount, logger: Logger) {
        self.timeout = timeout
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
        context.channel.setOption(.socketOption(.so_sndbuf), value: .init(Self.sendBufferBytes)).whenFailure { [logger] error in
            logger.debug("could not fix the send buffer", metadata: ["error": "\(error)"])
        }
        update(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        if case .end = unwrapInboundIn(data) {
            requestsAhead += 1
            guard requestsAhead <= Self.maximumRequestsAhead else {
                close(context, because: "it sent more than \(Self.maximumRequestsAhead) requests without reading the answers")
                return
            }
            update(context)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { requestsAhead = max(0, requestsAhead - 1) }
        writesPending += 1
        let written = promise ?? context.eventLoop.makePromise()
        let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        written.futureResult.whenComplete { result in
            let (handler, context) = loopBound.value
            handler.writesPending -= 1
            // Each part that reaches the socket is progress: the next gets a whole timeout.
            if case .success = result, handler.deadlineKind == .writing { handler.disarm() }
            handler.update(context)
        }
        context.write(data, promise: written)
        update(context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { disarm() }

    /// Arms the deadline the connection's state calls for: writing while answers wait for the
    /// socket, reading while no request waits for its answer, none while a handler works.
    private func update(_ context: ChannelHandlerContext) {
        let wanted: Deadline = writesPending > 0 ? .writing : requestsAhead == 0 ? .reading : .none
        guard wanted != deadlineKind else { return }
        disarm()
        guard wanted != .none, context.channel.isActive else { return }
        deadlineKind = wanted
        let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let seconds = Double(timeout.nanoseconds) / 1e9
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            let (handler, context) = loopBound.value
            switch wanted {
            case .writing: handler.close(context, because: "it took none of its answer for \(seconds) s (limits.request_timeout)")
            case .reading, .none: context.close(promise: nil)  // an idle or slow client: usual, not logged
            }
        }
    }

    private func close(_ context: ChannelHandlerContext, because reason: String) {
        guard !closing else { return }
        closing = true
        let client = context.channel.remoteAddress?.description ?? "a client"
        logger.notice("closed the connection from \(client): \(reason)")
        disarm()
        context.close(promise: nil)
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
        deadlineKind = .none
    }
}
