import Config
import Engine
import Foundation
import Hummingbird
import Logging
import NIOCore
import WebRTCTransport

/// The HTTP side of `livepush serve`: `/healthz` (open), the dashboard's static files from
/// `webRoot` (index.html, app.js, style.css, openapi.yaml — public, they hold no data), the login
/// routes, and behind a role (``RoleMiddleware``): the read-only API, snapshots, `/metrics`, each
/// camera's WHEP endpoint `/whep/{camera}` and its viewers' latency reports for viewers; the API's controls for the admin. Every
/// request first passes the Host and Origin checks (``RequestOriginMiddleware``), and every answer
/// carries the anti-framing and content policy headers (``SecurityHeadersMiddleware``). The engine
/// (``Engine/Broadcaster``) runs the cameras; this only routes.
public struct LivepushServer: Sendable {
    public let broadcaster: Broadcaster
    public let listen: ListenAddress
    public let webRoot: String?
    /// Tokens, host names, origins and limits as the config says now; ``reload(_:)`` updates them.
    public let access: ServerAccess
    public let limits: HTTPLimits
    /// HTTPS certificate and key, when the config has `tls`.
    public let tls: ServerTLS?
    let openWithoutToken: Bool
    public let logger: Logger

    public init(broadcaster: Broadcaster, config: LivepushConfig, webRoot: String?, logger: Logger = Logger(label: "livepush.http")) throws(ServerTLSError) {
        self.broadcaster = broadcaster
        self.listen = config.listen
        self.webRoot = webRoot
        self.access = ServerAccess(config: config)
        self.limits = config.limits
        self.tls = try config.tls.map { files throws(ServerTLSError) in try ServerTLS(files: files) }
        self.openWithoutToken = config.apiToken == nil
        self.logger = logger
    }

    /// Applies a reloaded config: tokens, `allowed_hosts`, `cors_origins`, per-address limits and
    /// the TLS certificate. The listen address and connection limits stay until a restart.
    public func reload(_ config: LivepushConfig) throws(ServerTLSError) {
        if let tls, let files = config.tls { try tls.reload(files) }
        access.update(from: config)
    }

    public func makeRouter() -> Router<ServerContext> {
        let router = Router(context: ServerContext.self)
        let access = self.access
        router.add(middleware: SecurityHeadersMiddleware.dashboard)
        router.add(middleware: JSONErrorMiddleware())
        router.add(middleware: RequestOriginMiddleware { OriginPolicy(allowedHosts: access.current.allowedHosts, crossOrigins: access.current.corsOrigins) })
        if let webRoot {
            router.add(middleware: FileMiddleware(webRoot, searchForIndexHtml: true, logger: logger))
        }
        router.get("/healthz") { _, _ in Acknowledgement(message: "livepush is up") }
        LoginRoutes(access: access, secureCookies: tls != nil).addRoutes(to: router)
        let viewer = router.group().add(middleware: RoleMiddleware(required: .viewer, access: access, secureCookies: tls != nil))
        APIRoutes().addViewerRoutes(to: viewer, broadcaster: broadcaster)
        ViewerLatencyRoutes(broadcaster: broadcaster).add(to: viewer, path: "/api/cameras/{id}/viewer-latency") { try $0.require("id") }
        let registry = broadcaster.factory.whep
        let whep = viewer.group().add(middleware: OfferRateLimitMiddleware(limiter: access.rateLimiter))
        WHEPRoutes(path: "/whep/{camera}", access: .init(corsOrigins: { access.current.corsOrigins },
                                                         viewersPerAddress: { access.current.whepViewersPerAddress })) { parameters in
            parameters.get("camera").flatMap { registry.service(for: $0) }
        }.add(to: whep)
        let admin = router.group().add(middleware: RoleMiddleware(required: .admin, access: access, secureCookies: tls != nil))
        APIRoutes().addAdminRoutes(to: admin, broadcaster: broadcaster)
        return router
    }

    /// The Hummingbird application (a swift-service-lifecycle `Service`, see ``HTTPApplication``);
    /// `onRunning` gets the bound address (useful with port 0).
    public func makeApplication(onRunning: @escaping @Sendable (String) async -> Void = { _ in }) throws -> some ApplicationProtocol {
        let listen = self.listen
        return try HTTPApplication.make(router: makeRouter(), host: listen.host, port: listen.port, limits: limits, tls: tls, logger: logger) { port in
            await onRunning(ListenAddress(host: listen.host, port: port).description)
        }
    }

    /// `http` or `https`, for the addresses printed.
    public var scheme: String { tls == nil ? "http" : "https" }

    /// The warnings to print before listening: all interfaces without a token is an open door.
    public var exposureWarning: String? {
        guard listen.isAllInterfacesOrPublic, openWithoutToken else { return nil }
        return """
        WARNING: livepush listens on \(listen) with NO api_token: anyone on the network can stop your \
        outputs, switch cameras and take snapshots. Set api_token (e.g. api_token: env:LIVEPUSH_TOKEN) \
        or listen on 127.0.0.1.
        """
    }

    /// Where the dashboard files are: `explicit`, else beside the binary's repository checkout,
    /// the installed share directory, or ./web.
    public static func findWebRoot(explicit: String?, executable: String = CommandLine.arguments[0]) -> String? {
        if let explicit { return explicit }
        let binaryDirectory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [
            binaryDirectory.appendingPathComponent("../share/livepush/web").path,   // /usr/local/bin → /usr/local/share
            binaryDirectory.appendingPathComponent("../../web").path,               // .build/release → repo/web
            binaryDirectory.appendingPathComponent("../../../web").path,            // .build/x86_64-unknown-linux-gnu/debug
            "/usr/share/livepush/web", "web",
        ]
        return candidates.first { FileManager.default.fileExists(atPath: "\($0)/index.html") }
            .map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    }
}
