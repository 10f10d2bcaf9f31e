import NIOCore
import NIOPosix
import NIOSSL
import RTMP

/// Whether an ingest answers: TCP (and TLS for rtmps://) and the RTMP handshake, then close. No
/// `connect` or `publish`, so the probe never holds the stream key on the server. A proxy or load
/// balancer that accepts TCP in front of a dead server fails the handshake, so it is not "reachable".
extension RTMPConnector {
    /// Succeeds with whether the handshake completed within `timeoutSeconds`; never fails.
    func probe(_ url: RTMPURL, timeoutSeconds: Double, on eventLoop: EventLoop) -> EventLoopFuture<Bool> {
        let done = eventLoop.makePromise(of: Bool.self)
        let sslContext = url.scheme.usesTLS ? try? makeSSLContext() : nil
        if url.scheme.usesTLS, sslContext == nil { return eventLoop.makeSucceededFuture(false) }
        let logger = logger
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(.nanoseconds(Int64(timeoutSeconds * 1e9)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    if let sslContext { try operations.addHandler(Self.tlsHandler(sslContext, host: url.host)) }
                    try operations.addHandler(RTMPHandshakeHandler(logger: logger))
                    try operations.addHandler(RTMPProbeHandler(done: done))
                }
            }
        bootstrap.connect(host: url.host, port: url.port).whenComplete { result in
            switch result {
            case .success(let channel):
                let timeout = eventLoop.scheduleTask(in: .nanoseconds(Int64(timeoutSeconds * 1e9))) { done.succeed(false) }
                done.futureResult.whenComplete { _ in
                    timeout.cancel()
                    channel.close(promise: nil)
                }
            case .failure:
                done.succeed(false)
            }
        }
        return done.futureResult
    }
}

/// Completes the probe: true once the handshake is over, false if the connection ends or fails first.
private final class RTMPProbeHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let done: EventLoopPromise<Bool>

    init(done: EventLoopPromise<Bool>) {
        self.done = done
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is RTMPHandshakeCompleted { done.succeed(true) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func channelInactive(context: ChannelHandlerContext) {
        done.succeed(false)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        done.succeed(false)
    }
}
