import NIOCore
import NIOSSL
import RTMP

/// What a session tells its owner, always on the channel's event loop.
enum RTMPSessionEvent {
    /// `publish` was accepted: media may go out on `messageStreamID`.
    case publishing(messageStreamID: UInt32)
    /// The server asked us to move (enhanced RTMP), to `tcURL` or, when nil, to the same URL.
    case reconnectRequested(tcURL: String?)
    /// More can be written (the channel became writable).
    case writable
    /// The handler is in its pipeline: the owner keeps it to send media through.
    case attached
    /// The connection is gone; `error` is nil after a clean stop.
    case closed(RTMPClientError?)
}

/// Receives session events; implemented by the output that owns the connection.
protocol RTMPSessionDelegate: AnyObject, Sendable {
    func session(_ session: RTMPSessionHandler, didReport event: RTMPSessionEvent)
}

/// The publish session on one connection: feeds `RTMPPublishStateMachine` with handshake completion,
/// messages from the chunk reader, byte counts and timer expiries, and performs its actions — chunked
/// writes through one `RTMPChunkWriter` (so control, command and media messages share its header state),
/// a timer per transaction, Acknowledgements and ping answers. Media from the owner goes through
/// `write(media:)` on the event loop.
final class RTMPSessionHandler: ChannelInboundHandler {
    typealias InboundIn = RTMPMessage
    typealias OutboundOut = ByteBuffer

    struct Timeouts: Sendable {
        var handshakeSeconds: Double
        var transactionSeconds: Double
    }

    private var machine: RTMPPublishStateMachine
    private var writer = RTMPChunkWriter()
    /// Reused for every write: NIO releases it once written, and `clear()` then keeps its storage.
    private var outgoing = ByteBuffer()
    private let timeouts: Timeouts
    private let delegate: RTMPSessionDelegate
    private var context: ChannelHandlerContext?
    private var handshakeTimer: Scheduled<Void>?
    private var transactionTimer: Scheduled<Void>?
    private var failure: RTMPClientError?
    private var stopping = false
    private var reportedClose = false
    private var phase = "during the handshake"

    init(configuration: RTMPPublishStateMachine.Configuration, timeouts: Timeouts, delegate: RTMPSessionDelegate) {
        machine = RTMPPublishStateMachine(configuration: configuration)
        self.timeouts = timeouts
        self.delegate = delegate
    }

    var isPublishing: Bool { machine.isPublishing }
    var publishingStreamID: UInt32? { machine.isPublishing ? machine.messageStreamID : nil }
    /// What the server announced in its `connect` result (multitrack, among others).
    var serverCapabilities: RTMPServerCapabilities { machine.serverCapabilities }
    var isWritable: Bool { context?.channel.isWritable ?? false }
    var channel: Channel? { context?.channel }
    /// Bytes written on this connection after the handshake (commands and media, chunk headers included).
    private(set) var bytesWritten: Int64 = 0
    /// What the server's Acknowledgements say it received (after the handshake, as the spec counts).
    var bytesAcknowledgedByServer: Int64 { Int64(machine.bytesAcknowledgedByPeer) }
    var acknowledgementsReceived: Int { machine.acknowledgementsReceived }
    /// How many bytes apart the server was asked to acknowledge.
    var acknowledgementWindow: Int64? { machine.announcedAcknowledgementWindow.map(Int64.init) }
    /// How many bytes apart it did acknowledge, at most.
    var largestAcknowledgementStep: Int64 { Int64(machine.largestAcknowledgementStep) }
    /// TCP_INFO's bytes acknowledged (after the handshake) at the last link check: the delivery
    /// judge's second witness compares each sample with it (``RTMPOutput/judgeDelivery(of:tcp:nowNanos:)``).
    var kernelAcknowledgedAtLastCheck: Int64?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { attach(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        attach(context: context)
        context.fireChannelActive()
    }

    /// Reports `.attached` once the connection is up, not when the handler is added: for a name with
    /// several addresses (`localhost` is ::1 and 127.0.0.1), NIO's Happy Eyeballs builds a pipeline for
    /// each attempt, and an attempt that is refused must not become the session (the owner would
    /// then turn away the attempt that did connect).
    private func attach(context: ChannelHandlerContext) {
        delegate.session(self, didReport: .attached)
        let seconds = timeouts.handshakeSeconds
        handshakeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) { [weak self] in
            self?.fail(.handshakeTimedOut(seconds: seconds))
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
        self.context = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is RTMPHandshakeCompleted:
            handshakeTimer?.cancel()
            phase = "while connecting (before publishing started)"
            perform(machine.handle(.handshakeDone))
        case let received as RTMPBytesReceived:
            perform(machine.handle(.bytesReceived(received.count)))
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        perform(machine.handle(.messageReceived(unwrapInboundIn(data))))
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { delegate.session(self, didReport: .writable) }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        fail(Self.clientError(error))
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        if failure == nil && !stopping { failure = .closedByServer(phase: phase) }
        reportClose()
        context.fireChannelInactive()
    }

    /// Writes one media message (not flushed; call `flush()` after a batch).
    /// - Returns: the bytes queued on the channel.
    @discardableResult
    func write(media message: RTMPMessage, promise: EventLoopPromise<Void>? = nil) -> Int {
        guard let context else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return 0
        }
        outgoing.clear()
        do {
            try writer.write(message, into: &outgoing)
        } catch {
            promise?.fail(error)
            fail(.protocolError(error))
            return 0
        }
        context.write(wrapOutboundOut(outgoing), promise: promise)
        bytesWritten += Int64(outgoing.readableBytes)
        return outgoing.readableBytes
    }

    func flush() { context?.flush() }

    /// FCUnpublish + deleteStream, then close.
    func stop() {
        guard !stopping else { return }
        stopping = true
        perform(machine.handle(.stopRequested))
    }

    /// Closes without the goodbye commands; the owner hears `.closed(nil)`.
    func abort() {
        stopping = true
        context?.close(promise: nil)
    }

    private func perform(_ action: RTMPPublishStateMachine.Action) {
        guard let context else { return }
        switch action {
        case .none:
            break
        case .send(let messages, let transaction):
            send(messages, context: context)
            if let transaction { startTimer(transactionID: transaction, context: context) }
        case .publishingStarted(let messageStreamID):
            transactionTimer?.cancel()
            phase = "while publishing"
            delegate.session(self, didReport: .publishing(messageStreamID: messageStreamID))
        case .reconnectRequested(let tcURL, _):
            delegate.session(self, didReport: .reconnectRequested(tcURL: tcURL))
        case .fail(let error):
            fail(.protocolError(error))
        case .close(let messages):
            send(messages, context: context)
            // Half-close: a FIN after the last media, then read until the server closes. Closing
            // outright while the server's Acknowledgements are still arriving makes the kernel answer
            // them with a reset, and a server that had not read the last frames yet loses them. The
            // owner's stop closes the rest after a few seconds if the server never does.
            let channel = context.channel
            let halfClosed = context.eventLoop.makePromise(of: Void.self)
            halfClosed.futureResult.whenFailure { _ in channel.close(promise: nil) }
            context.close(mode: .output, promise: halfClosed)
        }
    }

    private func send(_ messages: [RTMPMessage], context: ChannelHandlerContext) {
        for message in messages { write(media: message) }
        context.flush()
    }

    private func startTimer(transactionID: Int, context: ChannelHandlerContext) {
        transactionTimer?.cancel()
        transactionTimer = context.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(timeouts.transactionSeconds * 1e9))) { [weak self] in
            guard let self else { return }
            perform(machine.handle(.timeout(transactionID: transactionID)))
        }
    }

    /// Closes the connection and reports `error` (the first one wins).
    func fail(_ error: RTMPClientError) {
        guard failure == nil, !reportedClose else { return }
        failure = error
        context?.close(promise: nil)
    }

    private func reportClose() {
        guard !reportedClose else { return }
        reportedClose = true
        delegate.session(self, didReport: .closed(stopping && failure == nil ? nil : failure))
    }

    private func cancelTimers() {
        handshakeTimer?.cancel()
        transactionTimer?.cancel()
    }

    /// Maps what NIO and its decoders throw onto the client's errors.
    static func clientError(_ error: Error) -> RTMPClientError {
        switch error {
        case let error as RTMPClientError: return error
        case let error as RTMPError: return .protocolError(error)
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return .certificateNotVerified(reason: "\(error)")
        case NIOSSLError.handshakeFailed(let cause):
            // BoringSSL reports a rejected chain (untrusted, self-signed, expired) as CERTIFICATE_VERIFY_FAILED.
            let text = String(describing: cause)
            if text.contains("CERTIFICATE_VERIFY_FAILED") {
                return .certificateNotVerified(reason: "the chain does not lead to a trusted CA, or a certificate in it expired")
            }
            return .tlsFailed(reason: text)
        case NIOSSLError.uncleanShutdown:
            // The server went away without TLS's close_notify: a restart or a crash, not a TLS problem.
            return .closedByServer(phase: "without closing TLS first")
        case let error as NIOSSLError:
            return .tlsFailed(reason: "\(error)")
        case let error as NIOSSLExtraError:
            return .tlsFailed(reason: "\(error)")
        default:
            return .closedByServer(phase: "after a socket error (\(error))")
        }
    }
}
