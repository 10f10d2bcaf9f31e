import Foundation
import Hummingbird
import Synchronization

/// The dashboard's login sessions: a random id in an `HttpOnly; SameSite=Strict` cookie stands for
/// the role its token granted, so the token itself never sits in the browser (no localStorage a
/// script could read). Bounded per role: past a role's capacity its oldest session is dropped, so
/// logins cannot grow memory, and a viewer's logins never push out an admin's session (the viewer
/// token may be shared widely). Sessions expire, and all end when the tokens change (a reload) or on restart.
final class LoginSessions: Sendable {
    static let cookieName = "livepush_session"
    private struct Session { let role: AccessRole; let expires: ContinuousClock.Instant }
    private let sessions = Mutex<[String: Session]>([:])
    /// The most sessions each role may have at once.
    let capacity: [AccessRole: Int]
    let lifetime: Duration

    init(capacity: [AccessRole: Int] = [.admin: 32, .viewer: 256], lifetime: Duration = .seconds(12 * 3600)) {
        self.capacity = capacity
        self.lifetime = lifetime
    }

    /// Starts a session for `role`, dropping that role's oldest when it has its capacity; returns the cookie value.
    func start(_ role: AccessRole) -> String {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<4).map { _ in String(generator.next() as UInt64, radix: 16).leftPadded(to: 16) }.joined()
        let now = ContinuousClock.now
        let limit = max(1, capacity[role] ?? 1)
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value.expires > now }
            var same = sessions.filter { $0.value.role == role }
            while same.count >= limit, let oldest = same.min(by: { $0.value.expires < $1.value.expires })?.key {
                sessions[oldest] = nil
                same[oldest] = nil
            }
            sessions[id] = Session(role: role, expires: now + lifetime)
        }
        return id
    }

    /// The role of a live session, or nil.
    func role(of id: String) -> AccessRole? {
        sessions.withLock { sessions in
            guard let session = sessions[id] else { return nil }
            guard session.expires > ContinuousClock.now else { sessions[id] = nil; return nil }
            return session.role
        }
    }

    func end(_ id: String) { sessions.withLock { _ = $0.removeValue(forKey: id) } }
    func endAll() { sessions.withLock { $0.removeAll() } }
    var count: Int { sessions.withLock { $0.count } }

    /// The session cookie: `HttpOnly; SameSite=Strict`, `Secure` over HTTPS; `maxAge` 0 clears it.
    static func cookie(value: String, maxAge: Int, secure: Bool) -> Cookie {
        Cookie(name: cookieName, value: value, maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: .strict)
    }
}

private extension String {
    func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(0, length - count)) + self }
}
