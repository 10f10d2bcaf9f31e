import Foundation
import Hummingbird

/// The dashboard's login: `POST /api/login {"token": "…"}` trades a token for an `HttpOnly;
/// SameSite=Strict` session cookie (so `<img>` snapshots and WHEP work without the page holding the
/// token), `GET /api/session` says which role the caller has, `POST /api/logout` ends the session.
/// Logins, and wrong tokens or cookies anywhere, are rate limited per address, so tokens cannot be
/// guessed quickly.
struct LoginRoutes {
    let access: ServerAccess
    /// Marks the cookie `Secure` when the server speaks HTTPS.
    let secureCookies: Bool

    func addRoutes(to router: Router<ServerContext>) {
        router.post("/api/login") { request, context in
            guard access.rateLimiter.allow(context.clientAddress) else {
                throw AddressRateLimiter.refusal(context.clientAddress, tooMany: "login attempts")
            }
            let body = try await request.decodeJSON(LoginRequest.self)
            guard !access.current.tokens.isOpen else { return LoginAnswer(role: .admin, message: "this server needs no login (no api_token)").response() }
            guard let login = access.logIn(presenting: body.token) else {
                throw HTTPError(.unauthorized, message: "wrong token: use api_token (admin) or viewer_token (viewer) from the config")
            }
            var response = LoginAnswer(role: login.role, message: "logged in as \(login.role.rawValue)").response()
            response.setCookie(LoginSessions.cookie(value: login.session, maxAge: Int(access.sessions.lifetime.components.seconds), secure: secureCookies))
            return response
        }
        router.post("/api/logout") { request, _ in
            if let cookie = request.cookies[LoginSessions.cookieName] { access.sessions.end(cookie.value) }
            var response = LoginAnswer(role: nil, message: "logged out").response()
            response.setCookie(LoginSessions.cookie(value: "", maxAge: 0, secure: secureCookies))
            return response
        }
        router.get("/api/session") { request, context in
            if access.current.tokens.isOpen { return LoginAnswer(role: .admin, message: "open server: no token needed").response() }
            switch try access.credentials(of: request, from: context.clientAddress) {
            case .granted(let role):
                return LoginAnswer(role: role, message: "logged in as \(role.rawValue)").response()
            case .none, .refused(staleCookie: false):
                throw HTTPError(.unauthorized, message: "not logged in: log in with api_token (admin) or viewer_token (viewer)")
            case .refused(staleCookie: true):
                throw HTTPError(.unauthorized, headers: .clearingSessionCookie(secure: secureCookies),
                                message: "your session ended (the tokens changed, or the server restarted): log in again")
            }
        }
    }
}

package struct LoginRequest: Decodable {
    package let token: String
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
