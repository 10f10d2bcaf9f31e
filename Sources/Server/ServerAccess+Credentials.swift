import Hummingbird

/// What a request's credentials prove. Every route that reads a bearer token or a session cookie
/// asks here, so every such check is a counted guess: without the count, `GET /api/session` (or
/// any route behind the role check) would be an unlimited oracle for the token.
enum Credentials: Equatable {
    /// Neither a bearer token nor a session cookie.
    case none
    case granted(AccessRole)
    /// A wrong token, a `Authorization` that is not a bearer, or an unknown or ended session.
    case refused(staleCookie: Bool)
}

extension ServerAccess {
    /// Checks `request`'s bearer token (or else its session cookie) against the tokens now. A wrong
    /// one takes one of `limits.requests_per_minute` from `address`; once they are used, every
    /// request that presents credentials gets 429 (the right token too: the answer must not tell
    /// which guess was right) until the bucket refills, as logins do.
    func credentials(of request: Request, from address: String) throws(HTTPError) -> Credentials {
        let header = request.headers[.authorization]
        let cookie = request.cookies[LoginSessions.cookieName]?.value
        guard header != nil || cookie != nil else { return .none }
        guard failedCredentials.hasAllowance(address) else {
            throw AddressRateLimiter.refusal(address, tooMany: "wrong tokens or session cookies")
        }
        let role: AccessRole?
        if let header {
            role = header.hasPrefix("Bearer ") ? current.tokens.role(presenting: String(header.dropFirst(7))) : nil
        } else {
            role = cookie.flatMap { sessions.role(of: $0) }
        }
        if let role { return .granted(role) }
        _ = failedCredentials.allow(address)
        return .refused(staleCookie: header == nil)
    }
}

extension HTTPFields {
    /// Clears the session cookie, so a browser whose session ended (a reload that changed the
    /// tokens, a restart) stops sending it with every poll, each one counted as a wrong guess.
    static func clearingSessionCookie(secure: Bool) -> HTTPFields {
        [.setCookie: LoginSessions.cookie(value: "", maxAge: 0, secure: secure).description]
    }
}
