import Foundation
import Hummingbird

/// The dashboard's login: `POST /api/login {"token": "…"}` trades a token for an `HttpOnly;
/// SameSite=Strict` session cookie (so `<img>` snapshots and WHEP work without the page holding the
/// token), `GET /api/session` says which role the caller has, `POST /api/logout` ends the session.
/// Logins are rate limited per address, so tokens cannot be guessed quickly.
struct LoginRoutes {
    let access: ServerAccess
    /// Marks the cookie `Secure` when the server speaks HTTPS.
    let secureCookies: Bool

    func addRoutes(to router: Router<ServerContext>) {
        router.post("/api/login") { request, context in
            guard access.rateLimiter.allow(context.clientAddress) else {
                throw HTTPError(.tooManyRequests, headers: [.retryAfter: "60"], message: "too many attempts from \(context.clientAddress): wait a minute")
            }
            let body = try await request.decodeJSON(LoginRequest.self)
            let tokens = access.current.tokens
            guard !tokens.isOpen else { return LoginAnswer(role: .admin, message: "this server needs no login (no api_token)").response() }
            guard let role = tokens.role(presenting: body.token) else {
                throw HTTPError(.unauthorized, message: "wrong token: use api_token (admin) or viewer_token (viewer) from the config")
            }
            var response = LoginAnswer(role: role, message: "logged in as \(role.rawValue)").response()
            response.setCookie(Cookie(name: LoginSessions.cookieName, value: access.sessions.start(role), maxAge: Int(access.sessions.lifetime.components.seconds),
                                      path: "/", secure: secureCookies, httpOnly: true, sameSite: .strict))
            return response
        }
        router.post("/api/logout") { request, _ in
            if let cookie = request.cookies[LoginSessions.cookieName] { access.sessions.end(cookie.value) }
            var response = LoginAnswer(role: nil, message: "logged out").response()
            response.setCookie(Cookie(name: LoginSessions.cookieName, value: "", maxAge: 0, path: "/", secure: secureCookies, httpOnly: true, sameSite: .strict))
            return response
        }
        router.get("/api/session") { request, _ in
            let tokens = access.current.tokens
            if tokens.isOpen { return LoginAnswer(role: .admin, message: "open server: no token needed").response() }
            guard let role = RoleMiddleware<ServerContext>.role(of: request, tokens: tokens, sessions: access.sessions) else {
                throw HTTPError(.unauthorized, message: "not logged in: log in with api_token (admin) or viewer_token (viewer)")
            }
            return LoginAnswer(role: role, message: "logged in as \(role.rawValue)").response()
        }
    }
}

struct LoginRequest: Decodable {
    let token: String
}

/// `{"ok": true, "role": "viewer", "message": "…"}`.
struct LoginAnswer: Encodable {
    var ok = true
    let role: AccessRole?
    let message: String

    func response() -> Response {
        let body = (try? JSONEncoder().encode(self)).map { ByteBuffer(bytes: $0) } ?? ByteBuffer()
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: body))
    }
}
