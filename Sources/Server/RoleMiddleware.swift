import Hummingbird

/// Lets a request through when it proves at least `required`: `Authorization: Bearer TOKEN` with
/// the admin or viewer token, or the dashboard's login cookie (``LoginSessions``). An open server
/// (no admin token) lets everything through. Anything else gets 401 (no or wrong credentials) or
/// 403 (a viewer asking for an admin's action), each saying what to send; wrong credentials are
/// counted per address (``ServerAccess/credentials(of:from:)``), 429 past the limit.
///
/// A CORS preflight (`OPTIONS` with `Access-Control-Request-Method`) from an origin in
/// `cors_origins` passes without credentials: browsers never send any with a preflight, so
/// behind the check a page on an allowed origin could never use WHEP with a token.
struct RoleMiddleware: RouterMiddleware {
    let required: AccessRole
    let access: ServerAccess
    /// Whether cookies are marked `Secure` (the server speaks HTTPS).
    let secureCookies: Bool

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        let settings = access.current
        guard !settings.tokens.isOpen, !Self.isAllowedPreflight(request, origins: settings.corsOrigins) else {
            return try await next(request, context)
        }
        switch try access.credentials(of: request, from: context.clientAddress) {
        case .granted(let role):
            guard role >= required else {
                throw HTTPError(.forbidden, message: "this needs the admin's token (api_token); the viewer's token only watches")
            }
            return try await next(request, context)
        case .none:
            throw Self.unauthorized(headers: [:])
        case .refused(let staleCookie):
            throw Self.unauthorized(headers: staleCookie ? .clearingSessionCookie(secure: secureCookies) : [:])
        }
    }

    static func unauthorized(headers: HTTPFields) -> HTTPError {
        var headers = headers
        headers[.wwwAuthenticate] = "Bearer"
        return HTTPError(.unauthorized, headers: headers, message: """
            send 'Authorization: Bearer TOKEN' (api_token for the admin, viewer_token to watch) or log in on the dashboard
            """)
    }

    /// A browser's CORS preflight from one of `origins`.
    static func isAllowedPreflight(_ request: Request, origins: Set<String>) -> Bool {
        guard request.method == .options, request.headers[.accessControlRequestMethod] != nil,
              let origin = request.headers[.origin] else { return false }
        return origins.contains(origin.lowercased())
    }
}
