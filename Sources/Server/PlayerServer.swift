import Config
import Engine
import Hummingbird
import Logging
import WebRTCTransport

/// The HTTP side of `livepush stream --web ADDR:PORT`: the player pages from `web/` and the WHEP
/// endpoint, behind the same Host and Origin checks as `serve`'s router (``RequestOriginMiddleware``),
/// so a page whose name was rebound to this address cannot watch, and with serve's default limits
/// (slow clients, connections, WHEP offers per address per minute). With ``status``, also
/// `/api/status`, `/metrics` and the viewers' latency reports (`POST /api/viewer-latency`, see
/// ``ViewerLatencyRoutes``), behind the WHEP token when there is one (``BearerTokenMiddleware``).
public struct PlayerServer: Sendable {
    /// The camera whose status the player server shows and whose viewers' latency it collects.
    public struct Status: Sendable {
        public let broadcaster: Broadcaster
        public let camera: String
        /// The WHEP token: viewers hold it, so it admits them here too.
        public let token: String?

        public init(broadcaster: Broadcaster, camera: String, token: String?) {
            self.broadcaster = broadcaster
            self.camera = camera
            self.token = token
        }
    }

    public let host: String
    public let port: Int
    public let webRoot: String?
    public let routes: WHEPRoutes
    public let status: Status?

    public init(host: String, port: Int, webRoot: String?, routes: WHEPRoutes, status: Status? = nil) {
        self.host = host
        self.port = port
        self.webRoot = webRoot
        self.routes = routes
        self.status = status
    }

    /// Runs until the calling task is cancelled; `onServerRunning` gets the bound port.
    public func run(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let logger = Logger(label: "livepush.web")
        let router = Router(context: ServerContext.self)
        let policy = OriginPolicy(allowedHosts: ["0.0.0.0", "::"].contains(host) ? [] : [host.lowercased()])
        router.add(middleware: SecurityHeadersMiddleware.player)
        router.add(middleware: RequestOriginMiddleware { policy })
        if let webRoot { router.add(middleware: FileMiddleware(webRoot, searchForIndexHtml: true, logger: logger)) }
        let limits = HTTPLimits()
        routes.add(to: router.group().add(middleware: OfferRateLimitMiddleware(limiter: AddressRateLimiter(perMinute: limits.requestsPerMinutePerAddress))))
        if let status {
            let viewer = router.group().add(middleware: BearerTokenMiddleware(token: status.token))
            APIRoutes().addStatusRoutes(to: viewer, broadcaster: status.broadcaster)
            ViewerLatencyRoutes(broadcaster: status.broadcaster).add(to: viewer, path: "/api/viewer-latency") { _ in status.camera }
        }
        try await HTTPApplication.make(router: router, host: host, port: port, limits: limits, tls: nil, logger: logger, onRunning: onServerRunning).run()
    }
}
