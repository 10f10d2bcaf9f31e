import Foundation
import Synchronization

/// The dashboard's login sessions: a random id in an `HttpOnly; SameSite=Strict` cookie stands for
/// the role its token granted, so the token itself never sits in the browser (no localStorage a
/// script could read). Bounded: past `capacity` the oldest session is dropped, and sessions expire,
/// so logins cannot grow memory. All sessions end when the tokens change (a reload) or on restart.
final class LoginSessions: Sendable {
    static let cookieName = "livepush_session"
    private struct Session { let role: AccessRole; let expires: ContinuousClock.Instant }
    private let sessions = Mutex<[String: Session]>([:])
    let capacity: Int
    let lifetime: Duration

    init(capacity: Int = 256, lifetime: Duration = .seconds(12 * 3600)) {
        self.capacity = capacity
        self.lifetime = lifetime
    }

    /// Starts a session for `role`; returns the cookie value.
    func start(_ role: AccessRole) -> String {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<4).map { _ in String(generator.next() as UInt64, radix: 16).leftPadded(to: 16) }.joined()
        let now = ContinuousClock.now
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value.expires > now }
            while sessions.count >= capacity, let oldest = sessions.min(by: { $0.value.expires < $1.value.expires })?.key {
                sessions[oldest] = nil
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
}

private extension String {
    func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(0, length - count)) + self }
}
