import Hummingbird

/// Keeps web pages the operator visits from driving or reading the server (cross-site requests, DNS
/// rebinding), as go2rtc's and MediaMTX's advisories showed is needed:
/// - **Host**: only loopback names, the listen address and the config's `allowed_hosts` are
///   answered, matched exactly (``HostAllowlist``); a rebound name gets 421, naming the config key
///   that admits it; a request without a Host gets 400.
/// - **State changes** (POST, PUT, PATCH, DELETE): a browser's `Origin` must be this server's own
///   (`http(s)://HOST` as the request named it); another gets 403. The one exception is WHEP
///   (`/whep…`) from an origin in the config's `cors_origins`. Clients that are not browsers send
///   no Origin and are let through (tokens, when set, still apply).
/// - **JSON bodies**: a state change under `/api/` (however the path spells it: the router folds
///   `//`) that carries a body must say `Content-Type: application/json`, so no form, `text/plain`
///   or untyped request (none needs a CORS preflight) reaches a handler.
struct RequestOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    /// What is allowed now (read per request, so a reload applies).
    let policy: @Sendable () -> OriginPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let policy = policy()
        guard let authority = request.head.authority, !authority.isEmpty else {
            throw HTTPError(.badRequest, message: "send a Host header naming this server (HTTP/1.1 requires one)")
        }
        let host = HostAllowlist.hostName(authority)
        guard HostAllowlist.isAllowed(host: host, allowed: policy.allowedHosts) else {
            throw HTTPError(.misdirectedRequest, message: "this server does not answer to host '\(host)': add it to allowed_hosts in the config if it is yours")
        }
        if Self.changesState(request.method) {
            let path = Self.routedPath(request.uri.path)
            if let origin = request.headers[.origin] {
                let own = ["http://\(authority)", "https://\(authority)"]
                let allowedElsewhere = path.hasPrefix("/whep") && policy.crossOrigins.contains(origin.lowercased())
                guard own.contains(origin) || allowedElsewhere else {
                    throw HTTPError(.forbidden, message: "cross-site request refused: Origin \(origin) is not this server; use the dashboard, a client without a browser, or (for WHEP only) list the origin in cors_origins")
                }
            }
            if path.hasPrefix("/api/"), Self.hasBody(request) {
                let type = request.headers[.contentType]
                guard let type, type.lowercased().hasPrefix("application/json") else {
                    throw HTTPError(.unsupportedMediaType, message: "send the request body as JSON with Content-Type: application/json (got \(type ?? "no Content-Type"))")
                }
            }
        }
        return try await next(request, context)
    }

    static func changesState(_ method: HTTPRequest.Method) -> Bool { [.post, .put, .patch, .delete].contains(method) }

    /// The path as the router matches it: empty segments folded (`//api//x` is `/api/x` to the
    /// router) and lowercased, so no spelling of a route escapes the checks made by its prefix.
    static func routedPath(_ path: String) -> String {
        "/" + path.split(separator: "/").joined(separator: "/").lowercased()
    }

    /// Whether the request carries a body: a length above 0, or chunks.
    static func hasBody(_ request: Request) -> Bool {
        if request.headers[.transferEncoding] != nil { return true }
        return request.headers[.contentLength].map { $0 != "0" } ?? false
    }
}

/// The names a server answers to besides loopback, and the other origins allowed to use its WHEP endpoint.
struct OriginPolicy: Sendable {
    var allowedHosts: Set<String>
    var crossOrigins: Set<String> = []
}
