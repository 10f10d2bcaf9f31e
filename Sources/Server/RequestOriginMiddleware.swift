import Hummingbird

/// Keeps web pages the operator visits from driving or reading the server (cross-site requests, DNS
/// rebinding), as go2rtc's and MediaMTX's advisories showed is needed:
/// - **Host**: only loopback names, the listen address and the config's `allowed_hosts` are
///   answered; a rebound name gets 421, naming the config key that admits it.
/// - **State changes** (POST, PUT, PATCH, DELETE): a browser's `Origin` must be this server's own
///   (`http(s)://HOST` as the request named it); another gets 403. The one exception is WHEP
///   (`/whep…`) from an origin in the config's `cors_origins`. Clients that are not browsers send
///   no Origin and are let through (tokens, when set, still apply).
/// - **JSON bodies**: a state change under `/api/` that carries a body must say `Content-Type:
///   application/json`, so no form or `text/plain` request (which needs no CORS preflight) reaches a handler.
struct RequestOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    /// What is allowed now (read per request, so a reload applies).
    let policy: @Sendable () -> OriginPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let policy = policy()
        if let host = request.head.authority {
            guard Self.isAllowed(host: Self.hostName(host), allowed: policy.allowedHosts) else {
                throw HTTPError(.misdirectedRequest, message: "this server does not answer to host '\(Self.hostName(host))': add it to allowed_hosts in the config if it is yours")
            }
        }
        if Self.changesState(request.method) {
            let path = request.uri.path
            if let origin = request.headers[.origin] {
                let own = (request.head.authority).map { ["http://\($0)", "https://\($0)"] } ?? []
                let allowedElsewhere = path.hasPrefix("/whep") && policy.crossOrigins.contains(origin.lowercased())
                guard own.contains(origin) || allowedElsewhere else {
                    throw HTTPError(.forbidden, message: "cross-site request refused: Origin \(origin) is not this server; use the dashboard, a client without a browser, or (for WHEP only) list the origin in cors_origins")
                }
            }
            if path.hasPrefix("/api/"), let type = request.headers[.contentType], !type.lowercased().hasPrefix("application/json") {
                throw HTTPError(.unsupportedMediaType, message: "send the request body as JSON with Content-Type: application/json (got \(type))")
            }
        }
        return try await next(request, context)
    }

    static func changesState(_ method: HTTPRequest.Method) -> Bool { [.post, .put, .patch, .delete].contains(method) }

    /// `example.com` from `example.com:8080`, `::1` from `[::1]:8080`.
    static func hostName(_ authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "").lowercased()
    }

    static func isAllowed(host: String, allowed: Set<String>) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.") || allowed.contains(host)
    }
}

/// The names a server answers to besides loopback, and the other origins allowed to use its WHEP endpoint.
struct OriginPolicy: Sendable {
    var allowedHosts: Set<String>
    var crossOrigins: Set<String> = []
}
