import Config
import Hummingbird
import Synchronization

/// Who may reach the server and what they may do, as the config says now: the tokens, the host
/// names answered, the origins allowed to use WHEP, and the per-address limits. Every request reads
/// it, and a SIGHUP reload replaces it (``update(from:)``), so a changed token or `allowed_hosts`
/// takes effect without a restart; changed tokens end every login session.
public final class ServerAccess: Sendable {
    struct Settings: Sendable, Equatable {
        var tokens: AccessTokens
        /// Host names (lowercased, without port) answered besides loopback.
        var allowedHosts: Set<String>
        var corsOrigins: Set<String>
        var whepViewersPerAddress: Int
    }

    private let settings: Mutex<Settings>
    let sessions = LoginSessions()
    /// Logins and WHEP offers per address.
    let rateLimiter: AddressRateLimiter
    /// Wrong bearer tokens and session cookies per address: each is a guess, like a login.
    let failedCredentials: AddressRateLimiter
    /// The listen address's own name, answered as long as this process is bound to it.
    private let listenHost: String?

    public init(config: LivepushConfig) {
        // The listen address is one of this server's names unless it is every interface.
        listenHost = ["0.0.0.0", "::"].contains(config.listen.host) ? nil : config.listen.host.lowercased()
        settings = Mutex(Self.settings(from: config, listenHost: listenHost))
        rateLimiter = AddressRateLimiter(perMinute: config.limits.requestsPerMinutePerAddress)
        failedCredentials = AddressRateLimiter(perMinute: config.limits.requestsPerMinutePerAddress)
    }

    /// Applies a reloaded config. Changed tokens end every session under the same lock a login
    /// holds (``logIn(presenting:)``), so no session made from an old token outlives the change.
    public func update(from config: LivepushConfig) {
        let new = Self.settings(from: config, listenHost: listenHost)
        settings.withLock { current in
            if current.tokens != new.tokens { sessions.endAll() }
            current = new
        }
        rateLimiter.setPerMinute(config.limits.requestsPerMinutePerAddress)
        failedCredentials.setPerMinute(config.limits.requestsPerMinutePerAddress)
    }

    var current: Settings { settings.withLock { $0 } }

    /// Trades a token for a session: the token is checked and the session made under one lock, so
    /// a reload cannot swap the tokens in between. Nil for a wrong token.
    func logIn(presenting token: String) -> (role: AccessRole, session: String)? {
        settings.withLock { settings in
            guard let role = settings.tokens.role(presenting: token) else { return nil }
            return (role, sessions.start(role))
        }
    }

    private static func settings(from config: LivepushConfig, listenHost: String?) -> Settings {
        Settings(tokens: AccessTokens(admin: config.apiToken?.value, viewer: config.viewerToken?.value),
                 allowedHosts: Set(config.allowedHosts + (listenHost.map { [$0] } ?? [])),
                 corsOrigins: Set(config.corsOrigins), whepViewersPerAddress: config.limits.whepViewersPerAddress)
    }
}
