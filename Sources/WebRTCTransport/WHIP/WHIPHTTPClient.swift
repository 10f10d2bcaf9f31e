import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One HTTP/1.1 exchange of the WHIP client: a request and its complete response.
public struct WHIPHTTPRequest: Sendable {
    public var method: HTTPMethod
    public var url: WHIPURL
    public var headers: [(String, String)]
    public var body: String?

    public init(method: HTTPMethod, url: WHIPURL, headers: [(String, String)] = [], body: String? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

public struct WHIPHTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: String
}

/// The WHIP client's HTTP(S) requests over SwiftNIO: a new connection per request (WHIP sends a
/// handful per session), TLS with certificate verification and SNI for https (plus an optional
/// extra CA file), and one deadline covering connect, TLS, request and response.
public struct WHIPHTTPClient: Sendable {
    /// One deadline for each request: connect, TLS, request and response.
    public let timeoutSeconds: Double
    /// Extra PEM CA certificates (a private server's own CA); the system roots are always trusted.
    public let caCertificatesPath: String?
    /// The TLS context, made once: loading the trust store per request would stall the event loop
    /// that also runs this output's ICE, DTLS and SRTP.
    private let tlsContext: Result<NIOSSLContext, any Error>
    /// An SDP answer is a few kB; anything far larger is not one.
    static let maximumResponseBytes = 256 * 1024

    public init(timeoutSeconds: Double = 10, caCertificatesPath: String? = nil) {
        self.timeoutSeconds = timeoutSeconds
        self.caCertificatesPath = caCertificatesPath
        tlsContext = Result { try Self.makeSSLContext(caCertificatesPath: caCertificatesPath) }
    }

    /// Sends `request` on `eventLoop`; the future fails with a ``WHIPError``.
    public func send(_ request: WHIPHTTPRequest, on eventLoop: EventLoop) -> EventLoopFuture<WHIPHTTPResponse> {
        let url = request.url
        let method = request.method.rawValue
        let promise = eventLoop.makePromise(of: WHIPHTTPResponse.self)
        let sslContext: NIOSSLContext?
        do {
            sslContext = try url.isTLS ? tlsContext.get() : nil
        } catch {
            promise.fail(WHIPError.tlsFailed(reason: "\(error)"))
            return promise.futureResult
        }
        let timeout = eventLoop.scheduleTask(in: .nanoseconds(Int64(timeoutSeconds * 1e9))) {
            promise.fail(WHIPError.timedOut(method: method, seconds: timeoutSeconds))
        }
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(.nanoseconds(Int64(timeoutSeconds * 1e9)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    if let sslContext {
                        // SNI only for names: RFC 6066 §3 forbids IP literals in server_name.
                        let isAddress = url.host.allSatisfy { $0.isHexDigit || $0 == "." || $0 == ":" }
                        try operations.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: isAddress ? nil : url.host))
                    }
                    try operations.addHTTPClientHandlers()
                    try operations.addHandler(WHIPResponseCollector(method: method, promise: promise, limit: Self.maximumResponseBytes))
                }
            }
        bootstrap.connect(host: url.host, port: url.port).whenComplete { result in
            switch result {
            case .failure(let error):
                promise.fail(WHIPError.connectionFailed(host: url.host, port: url.port, reason: "\(error)"))
            case .success(let channel):
                promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
                channel.writeAndFlush(HTTPClientRequestPart.head(Self.head(of: request)), promise: nil)
                if let body = request.body {
                    channel.writeAndFlush(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(string: body))), promise: nil)
                }
                channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            }
        }
        promise.futureResult.whenComplete { _ in timeout.cancel() }
        return promise.futureResult
    }

    static func head(of request: WHIPHTTPRequest) -> HTTPRequestHead {
        var headers = HTTPHeaders([("Host", request.url.hostHeader), ("Connection", "close")])
        headers.add(contentsOf: request.headers)
        headers.add(name: "Content-Length", value: "\(request.body?.utf8.count ?? 0)")
        return HTTPRequestHead(version: .http1_1, method: request.method, uri: request.url.target, headers: headers)
    }

    private static func makeSSLContext(caCertificatesPath: String?) throws -> NIOSSLContext {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        if let caCertificatesPath {
            tls.additionalTrustRoots = [.file(caCertificatesPath)]
        }
        return try NIOSSLContext(configuration: tls)
    }
}

/// Collects one response (head, bounded body, end) into the promise; any failure fails it.
private final class WHIPResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let method: String
    private let promise: EventLoopPromise<WHIPHTTPResponse>
    private let limit: Int
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()

    init(method: String, promise: EventLoopPromise<WHIPHTTPResponse>, limit: Int) {
        self.method = method
        self.promise = promise
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body(var part):
            guard body.readableBytes + part.readableBytes <= limit else {
                promise.fail(WHIPError.responseTooLarge(limit: limit))
                context.close(promise: nil)
                return
            }
            body.writeBuffer(&part)
        case .end:
            guard let head else { return }
            promise.succeed(WHIPHTTPResponse(status: Int(head.status.code), headers: head.headers, body: String(buffer: body)))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(WHIPError.connectionClosed(method: method))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let isTLS = error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError
        promise.fail(isTLS ? WHIPError.tlsFailed(reason: "\(error)") : WHIPError.connectionClosed(method: method))
        context.close(promise: nil)
    }
}
