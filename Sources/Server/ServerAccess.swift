import Config
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
    let rateLimiter: AddressRateLimiter
    /// The listen address's own name, answered as long as this process is bound to it.
    private let listenHost: String?

    public init(config: LivepushConfig) {
        // The listen address is one of this server's names unless it is every interface.
        listenHost = ["0.0.0.0", "::"].contains(config.listen.host) ? nil : config.listen.host.lowercased()
        settings = Mutex(Self.settings(from: config, listenHost: listenHost))
        rateLimiter = AddressRateLimiter(perMinute: config.limits.requestsPerMinutePerAddress)
    }

    /// Applies a reloaded config.
    public func update(from config: LivepushConfig) {
        let new = Self.settings(from: config, listenHost: listenHost)
        let tokensChanged = settings.withLock { current in
            defer { current = new }
            return current.tokens != new.tokens
        }
        if tokensChanged { sessions.endAll() }
        rateLimiter.setPerMinute(config.limits.requestsPerMinutePerAddress)
    }

    var current: Settings { settings.withLock { $0 } }

    private static func settings(from config: LivepushConfig, listenHost: String?) -> Settings {
        Settings(tokens: AccessTokens(admin: config.apiToken?.value, viewer: config.viewerToken?.value),
                 allowedHosts: Set(config.allowedHosts + (listenHost.map { [$0] } ?? [])),
                 corsOrigins: Set(config.corsOrigins), whepViewersPerAddress: config.limits.whepViewersPerAddress)
    }
}
