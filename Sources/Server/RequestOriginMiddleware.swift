import Hummingbird

/// Keeps web pages the operator visits from driving or reading the API (cross-site requests, DNS
/// rebinding), as go2rtc's and MediaMTX's advisories showed is needed:
/// - **Host**: only loopback names, the listen address and the config's `allowed_hosts` are
///   answered; a rebound name gets 421, naming the config key that admits it.
/// - **State changes** (POST, PUT, PATCH, DELETE) under `/api/`: a browser's `Origin` must be this
///   server's own (`http://HOST` as the request named it); another origin gets 403. Clients that are
///   not browsers send no Origin and are let through (the bearer token, when set, still applies).
/// - **JSON bodies**: a state change that carries a body must say `Content-Type: application/json`,
///   so no form or `text/plain` request (which needs no CORS preflight) reaches a handler.
struct RequestOriginMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Host names (without port) this server answers to besides loopback.
    let allowedHosts: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let host = request.head.authority {
            guard Self.isAllowed(host: Self.hostName(host), allowed: allowedHosts) else {
                throw HTTPError(.misdirectedRequest, message: "this server does not answer to host '\(Self.hostName(host))': add it to allowed_hosts in the config if it is yours")
            }
        }
        if Self.changesState(request.method), request.uri.path.hasPrefix("/api/") {
            if let origin = request.headers[.origin] {
                let own = (request.head.authority).map { ["http://\($0)", "https://\($0)"] } ?? []
                guard own.contains(origin) else {
                    throw HTTPError(.forbidden, message: "cross-site request refused: Origin \(origin) is not this server; use the dashboard or a client without a browser")
                }
            }
            if let type = request.headers[.contentType], !type.lowercased().hasPrefix("application/json") {
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
