import Hummingbird

/// Lets a request through when it proves at least `required`: `Authorization: Bearer TOKEN` with
/// the admin or viewer token, or the dashboard's login cookie (``LoginSessions``). An open server
/// (no admin token) lets everything through. Anything else gets 401 (no or wrong credentials) or
/// 403 (a viewer asking for an admin's action), each saying what to send.
struct RoleMiddleware<Context: RequestContext>: RouterMiddleware {
    let required: AccessRole
    let access: ServerAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let tokens = access.current.tokens
        guard !tokens.isOpen else { return try await next(request, context) }
        guard let role = Self.role(of: request, tokens: tokens, sessions: access.sessions) else {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: """
                send 'Authorization: Bearer TOKEN' (api_token for the admin, viewer_token to watch) or log in on the dashboard
                """)
        }
        guard role >= required else {
            throw HTTPError(.forbidden, message: "this needs the admin's token (api_token); the viewer's token only watches")
        }
        return try await next(request, context)
    }

    /// The role a request's bearer token or session cookie grants; nil for none or a wrong one.
    static func role(of request: Request, tokens: AccessTokens, sessions: LoginSessions) -> AccessRole? {
        if let header = request.headers[.authorization] {
            guard header.hasPrefix("Bearer ") else { return nil }
            return tokens.role(presenting: String(header.dropFirst(7)))
        }
        return request.cookies[LoginSessions.cookieName].flatMap { sessions.role(of: $0.value) }
    }
}
