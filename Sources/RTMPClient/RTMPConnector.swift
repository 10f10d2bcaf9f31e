import NIOCore
import NIOPosix
import NIOSSL
import RTMP

/// Opens one RTMP connection: TCP with TCP_NODELAY (small control messages must not wait for Nagle),
/// a write-buffer watermark so "not writable" means the socket is behind, TLS with certificate verification
/// and SNI for rtmps://, and the pipeline
/// `[TLS] → byte counter → handshake → chunk reader → session`.
struct RTMPConnector: Sendable {
    struct Settings: Sendable {
        var connectTimeoutSeconds: Double
        var timeouts: RTMPSessionHandler.Timeouts
        /// Extra PEM CA bundle for rtmps:// (a private ingest); the system roots are always trusted.
        var caCertificatesPath: String?
        var writeBufferLowBytes: Int
        var writeBufferHighBytes: Int
    }

    let group: EventLoopGroup
    let settings: Settings

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
        let host = url.host
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(.nanoseconds(Int64(settings.connectTimeoutSeconds * 1e9)))
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .channelOption(.writeBufferWaterMark, value: .init(low: settings.writeBufferLowBytes, high: settings.writeBufferHighBytes))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    if let sslContext {
                        // SNI only for names: RFC 6066 §3 forbids IP literals in server_name.
                        let isAddress = host.allSatisfy { $0.isHexDigit || $0 == "." || $0 == ":" }
                        try operations.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: isAddress ? nil : host))
                    }
                    try operations.addHandler(RTMPByteCounter())
                    try operations.addHandler(RTMPHandshakeHandler())
                    try operations.addHandler(ByteToMessageHandler(RTMPChunkReader()))
                    try operations.addHandler(RTMPSessionHandler(configuration: configuration, timeouts: timeouts, delegate: delegate))
                }
            }
        return bootstrap.connect(host: url.host, port: url.port).flatMapErrorThrowing { error in
            throw RTMPClientError.connectionFailed(host: url.host, port: url.port, reason: "\(error)")
        }
    }

    private func makeSSLContext() throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        if let path = settings.caCertificatesPath {
            tls.additionalTrustRoots = [.file(path)]
        }
        return try NIOSSLContext(configuration: tls)
    }
}
