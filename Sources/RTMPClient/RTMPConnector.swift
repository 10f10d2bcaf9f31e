#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import RTMP

/// Opens one RTMP connection: TCP with TCP_NODELAY (small control messages must not wait for Nagle),
/// a bounded backlog below the send queue (see `Settings.backlogBytes`), TLS with certificate verification
/// and SNI for rtmps://, and the pipeline
/// `[TLS] → byte counter → handshake → chunk reader → session`.
struct RTMPConnector: Sendable {
    struct Settings: Sendable {
        var connectTimeoutSeconds: Double
        var timeouts: RTMPSessionHandler.Timeouts
        /// Extra PEM CA bundle for rtmps:// (a private ingest); the system trust store is always used.
        var caCertificatesPath: String?
        /// How much written media may wait below the send queue, in NIO's outbound buffer and again in the
        /// kernel's unsent data (TCP_NOTSENT_LOWAT). Only the send queue drops smartly (by GOP, keeping audio);
        /// bytes below it are a blind FIFO. Left alone, Linux grows a socket's send buffer up to
        /// `tcp_wmem` (4 MiB: over 10 s of a 2.5 Mbit/s stream), which hides congestion from the queue and
        /// adds that much latency. TCP_NOTSENT_LOWAT bounds only the bytes not yet sent, unlike a fixed
        /// SO_SNDBUF, so bytes in flight can still grow with the path's bandwidth × RTT.
        var backlogBytes: Int

        /// A quarter second of the stream, at least 32 KiB (a keyframe still goes out whole: the drain
        /// loop checks writability before each message, not within one).
        static func backlogBytes(bitsPerSecond: Int) -> Int {
            max(32 * 1024, bitsPerSecond / 8 / 4)
        }
    }

    let group: EventLoopGroup
    let settings: Settings
    let logger: Logger

    /// Connects on `eventLoop`; the future completes once the TCP (and TLS client) handlers are in place.
    func connect(
        to url: RTMPURL, configuration: RTMPPublishStateMachine.Configuration,
        on eventLoop: EventLoop, delegate: RTMPSessionDelegate
    ) -> EventLoopFuture<Channel> {
        let sslContext: NIOSSLContext?
        do {
            sslContext = try url.scheme.usesTLS ? makeSSLContext() : nil
        } catch {
            return eventLoop.makeFailedFuture(RTMPClientError.tlsFailed(reason: "\(error)"))
        }
        let timeouts = settings.timeouts
        let logger = logger
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(.nanoseconds(Int64(settings.connectTimeoutSeconds * 1e9)))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelOption(.tcpOption(.init(rawValue: TCP_NOTSENT_LOWAT)), value: .init(settings.backlogBytes))
            .channelOption(.writeBufferWaterMark, value: .init(low: settings.backlogBytes / 4, high: settings.backlogBytes))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    if let sslContext { try operations.addHandler(Self.tlsHandler(sslContext, host: url.host)) }
                    try operations.addHandler(RTMPByteCounter())
                    try operations.addHandler(RTMPHandshakeHandler(logger: logger))
                    try operations.addHandler(ByteToMessageHandler(RTMPChunkReader()))
                    try operations.addHandler(RTMPSessionHandler(configuration: configuration, timeouts: timeouts, delegate: delegate))
                }
            }
        return bootstrap.connect(host: url.host, port: url.port).flatMapErrorThrowing { error in
            throw RTMPClientError.connectionFailed(host: url.host, port: url.port, reason: "\(error)")
        }
    }

    /// TLS for rtmps://, with SNI only for names: RFC 6066 §3 forbids IP literals in server_name.
    static func tlsHandler(_ context: NIOSSLContext, host: String) throws -> NIOSSLClientHandler {
        let isAddress = host.allSatisfy { $0.isHexDigit || $0 == "." || $0 == ":" }
        return try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host)
    }

    func makeSSLContext() throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        if let path = settings.caCertificatesPath {
            tls.additionalTrustRoots = [.file(path)]
        }
        return try NIOSSLContext(configuration: tls)
    }
}
