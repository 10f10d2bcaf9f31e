import Config
import Engine
import Foundation
import Hummingbird
import Logging
import NIOCore
import WebRTCTransport

/// The request context every livepush route uses.
public typealias ServerContext = BasicRequestContext

/// The HTTP side of `livepush serve`: `/healthz` (open), the JSON API, `/metrics` and each
/// camera's WHEP endpoint `/whep/{camera}` (behind the bearer token when one is configured), and
/// the dashboard's static files from `webRoot` (index.html, app.js, style.css, openapi.yaml —
/// public, they hold no data). The engine (``Engine/Broadcaster``) runs the cameras; this only routes.
public struct LivepushServer: Sendable {
    public let broadcaster: Broadcaster
    public let listen: ListenAddress
    public let apiToken: Secret?
    public let webRoot: String?
    /// Host names answered besides loopback and the listen address (the config's `allowed_hosts`).
    public let allowedHosts: [String]
    public let logger: Logger

    public init(broadcaster: Broadcaster, listen: ListenAddress, apiToken: Secret?, webRoot: String?, allowedHosts: [String] = [],
                logger: Logger = Logger(label: "livepush.http")) {
        self.broadcaster = broadcaster
        self.listen = listen
        self.apiToken = apiToken
        self.webRoot = webRoot
        self.allowedHosts = allowedHosts
        self.logger = logger
    }

    public func makeRouter() -> Router<ServerContext> {
        let router = Router(context: ServerContext.self)
        router.add(middleware: JSONErrorMiddleware())
        // The listen address is one of this server's names unless it is every interface.
        let listenHost = ["0.0.0.0", "::"].contains(listen.host) ? [] : [listen.host.lowercased()]
        router.add(middleware: RequestOriginMiddleware(allowedHosts: Set(allowedHosts + listenHost)))
        if let webRoot {
            router.add(middleware: FileMiddleware(webRoot, searchForIndexHtml: true, logger: logger))
        }
        router.get("/healthz") { _, _ in Acknowledgement(message: "livepush is up") }
        let guarded = router.group()
        if let apiToken { guarded.add(middleware: BearerTokenMiddleware(token: apiToken.value)) }
        APIRoutes().addRoutes(to: guarded, broadcaster: broadcaster)
        let registry = broadcaster.factory.whep
        WHEPRoutes(path: "/whep/{camera}") { parameters in parameters.get("camera").flatMap { registry.service(for: $0) } }.add(to: guarded)
        return router
    }

    /// The Hummingbird application (a swift-service-lifecycle `Service`); `onRunning` gets the
    /// bound address (useful with port 0).
    public func makeApplication(onRunning: @escaping @Sendable (String) async -> Void = { _ in }) -> some ApplicationProtocol {
        Application(router: makeRouter(),
                    configuration: ApplicationConfiguration(address: .hostname(listen.host, port: listen.port), serverName: "livepush"),
                    onServerRunning: { channel in
                        let port = channel.localAddress?.port ?? listen.port
                        await onRunning(ListenAddress(host: listen.host, port: port).description)
                    },
                    logger: logger)
    }

    /// The warnings to print before listening: all interfaces without a token is an open door.
    public var exposureWarning: String? {
        guard listen.isAllInterfacesOrPublic, apiToken == nil else { return nil }
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
