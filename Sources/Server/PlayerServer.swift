import Hummingbird
import Logging
import WebRTCTransport

/// The HTTP side of `livepush stream --web ADDR:PORT`: the player pages from `web/` and the WHEP
/// endpoint, on a small Hummingbird application behind the same Host check as `serve`'s router
/// (``RequestOriginMiddleware``), so a page whose name was rebound to this address cannot watch.
public struct PlayerServer: Sendable {
    public let host: String
    public let port: Int
    public let webRoot: String?
    public let routes: WHEPRoutes

    public init(host: String, port: Int, webRoot: String?, routes: WHEPRoutes) {
        self.host = host
        self.port = port
        self.webRoot = webRoot
        self.routes = routes
    }

    /// Runs until the calling task is cancelled; `onServerRunning` gets the bound port.
    public func run(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let logger = Logger(label: "livepush.web")
        let router = Router(context: ServerContext.self)
        let policy = OriginPolicy(allowedHosts: ["0.0.0.0", "::"].contains(host) ? [] : [host.lowercased()])
        router.add(middleware: RequestOriginMiddleware { policy })
        if let webRoot { router.add(middleware: FileMiddleware(webRoot, searchForIndexHtml: true, logger: logger)) }
        routes.add(to: router)
        let app = Application(router: router, configuration: .init(address: .hostname(host, port: port)),
                              onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) }, logger: logger)
        try await app.run()
    }
}
