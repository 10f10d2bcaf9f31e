import Logging

/// When to try a refused stream key again soon rather than after the growing backoff.
///
/// After livepush gives up on one of its own live connections (a stall, a connection the server or the
/// network closed), the server often still holds that frozen session: the key stays "in use" until the
/// server drops the session as idle (nginx-rtmp's `drop_idle_publisher`, a platform's own timer), and
/// each reconnect meanwhile is refused. The backoff, which grows with every refusal, would then wait
/// up to seconds past the moment the server lets go. Within `window` of the loss, an "in use" refusal
/// is retried every `interval` instead; after the window (the key is probably someone else's after
/// all) the normal backoff takes over again. A refusal with no loss of ours before it — the first
/// connect — is never rushed: that key is someone else's stream.
///
/// No clock of its own: the owner passes the monotonic time, so tests drive it with a controlled one.
public struct KeyInUseRetry: Sendable, Equatable {
    public struct Settings: Sendable, Hashable {
        /// How soon to try again after an "in use" refusal.
        public var intervalSeconds: Double
        /// How long after the loss quick retries go on; 0 turns them off.
        public var windowSeconds: Double

        public static let defaultIntervalSeconds = 0.25
        public static let defaultWindowSeconds = 60.0

        public init(intervalSeconds: Double = defaultIntervalSeconds, windowSeconds: Double = defaultWindowSeconds) {
            self.intervalSeconds = intervalSeconds
            self.windowSeconds = windowSeconds
        }
    }

    public enum Phase: Sendable, Equatable {
        /// No loss of ours since the last live connection (or none yet): refusals take the backoff.
        case idle
        /// One of our live connections was lost at `lostAtNanos`; `refusals` "in use" refusals since.
        case armed(lostAtNanos: Int64, refusals: Int)
        /// The window passed with the key still refused: the backoff again, until a connection goes live.
        case expired(refusals: Int)
    }

    public enum Decision: Sendable, Equatable {
        /// Try again after `seconds`; `refusal` counts the "in use" refusals since the loss.
        case retry(afterSeconds: Double, refusal: Int)
        /// The normal backoff applies (a first connect, or the window has passed).
        case backoff
    }

    public let settings: Settings
    public private(set) var phase = Phase.idle

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// One of our own live connections was lost (we called it stalled, or it closed): the key may be
    /// held by that session for a while.
    public mutating func ownConnectionLost(atNanos nowNanos: Int64) {
        phase = .armed(lostAtNanos: nowNanos, refusals: 0)
    }

    /// A connection went live: the next refusal needs a loss of ours before it is rushed.
    public mutating func connected() {
        phase = .idle
    }

    /// The server refused the key as in use at `nowNanos`.
    public mutating func refusedInUse(atNanos nowNanos: Int64) -> Decision {
        guard settings.windowSeconds > 0, case .armed(let lostAt, let refusals) = phase else { return .backoff }
        let retryAt = Double(nowNanos - lostAt) / 1e9 + settings.intervalSeconds
        guard retryAt <= settings.windowSeconds else {
            phase = .expired(refusals: refusals + 1)
            return .backoff
        }
        phase = .armed(lostAtNanos: lostAt, refusals: refusals + 1)
        return .retry(afterSeconds: settings.intervalSeconds, refusal: refusals + 1)
    }

    /// One refusal as its owner acts on it: when to try again (nil: the backoff), what the status says,
    /// and a warning once the window has passed with the key still refused.
    public struct Verdict: Sendable, Equatable {
        public var retryAfterSeconds: Double?
        /// "In use" refusals since the loss (0 when not rushing).
        public var refusal: Int
        public var stateReason: String?
        public var warning: String?

        /// Says it in the owner's log, the same way for every output: why it retries soon, or that the
        /// window has passed.
        public func log(to logger: Logger, metadata: Logger.Metadata) {
            if let warning { logger.warning("\(warning)", metadata: metadata) }
            guard let seconds = retryAfterSeconds else { return }
            logger.info("key in use, probably by our own lost connection until the server drops it; retrying soon",
                        metadata: metadata.merging(["in": "\(String(format: "%.2f", seconds)) s", "refusal": "\(refusal)"]) { $1 })
        }
    }

    /// ``refusedInUse(atNanos:)`` with what the owner shows and logs of it.
    public mutating func judgeRefusal(atNanos nowNanos: Int64) -> Verdict {
        let decision = refusedInUse(atNanos: nowNanos)
        let reason = stateReason
        guard case .retry(let seconds, let refusal) = decision else {
            let windowPassed = if case .expired = phase { true } else { false }
            return Verdict(retryAfterSeconds: nil, refusal: 0, stateReason: reason, warning: windowPassed ? reason : nil)
        }
        return Verdict(retryAfterSeconds: seconds, refusal: refusal, stateReason: reason, warning: nil)
    }

    /// What the output's status says while this is in play (``OutputStatus/stateReason``); nil when idle.
    public var stateReason: String? {
        switch phase {
        case .idle, .armed(_, 0):
            return nil
        case .armed(_, let refusals):
            return "key in use (\(refusals) \(refusals == 1 ? "refusal" : "refusals") since our connection was lost), "
                + "retrying every \(Self.milliseconds(settings.intervalSeconds)) ms"
        case .expired(let refusals):
            return "key still in use \(Self.seconds(settings.windowSeconds)) s after our connection was lost "
                + "(\(refusals) refusals): back to the normal backoff"
        }
    }

    private static func milliseconds(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }
    private static func seconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)"
    }
}
