import Hummingbird

/// The request context every livepush route uses.
public typealias ServerContext = BasicRequestContext

/// The extension point for HTTP routes that live in other modules — the WHEP endpoint
/// (`POST /whep/{camera}`, `PATCH`/`DELETE /whep/{camera}/{session}`) is the first.
///
/// ``LivepushServer`` calls ``addRoutes(to:broadcaster:)`` once while building its router. The
/// group it passes already has bearer-token auth (when a token is configured) and the JSON
/// error middleware, so a provider only adds its paths:
///
/// ```swift
/// struct WHEPRoutes: RouteProvider {
///     func addRoutes(to group: RouterGroup<ServerContext>, broadcaster: Broadcaster) {
///         group.post("/whep/{camera}") { request, context in … }
///         group.delete("/whep/{camera}/{session}") { request, context in … }
///     }
/// }
/// let server = LivepushServer(broadcaster: broadcaster, routeProviders: [WHEPRoutes()])
/// ```
///
/// Throw ``ServerError`` (or Hummingbird's `HTTPError`) for failures: they become 4xx/5xx answers
/// with a JSON body `{"error": {"message": "…"}}`.
public protocol RouteProvider: Sendable {
    func addRoutes(to group: RouterGroup<ServerContext>, broadcaster: Broadcaster)
}
