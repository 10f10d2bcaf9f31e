import MediaCore

/// When an output (RTMP, SRT, WHIP) tries again after a connection is lost: the shared ``Backoff``
/// (exponential, with jitter, so a fleet of encoders that lost the same ingest does not reconnect
/// in lock-step), and how many attempts before giving up.
public struct ReconnectPolicy: Sendable, Hashable {
    public var backoff: Backoff
    /// Attempts after a loss before giving up; nil retries for ever (a headless broadcaster's default).
    public var maximumAttempts: Int?

    public init(initialDelaySeconds: Double = 1, maximumDelaySeconds: Double = 30, maximumAttempts: Int? = nil) {
        backoff = Backoff(initialDelaySeconds: initialDelaySeconds, maximumDelaySeconds: maximumDelaySeconds)
        self.maximumAttempts = maximumAttempts
    }

    public var initialDelaySeconds: Double { backoff.initialDelaySeconds }
    public var maximumDelaySeconds: Double { backoff.maximumDelaySeconds }

    /// The wait before attempt `attempt` (1-based), or nil when attempts are used up.
    public func delaySeconds(beforeAttempt attempt: Int, random: inout some RandomNumberGenerator) -> Double? {
        if let maximumAttempts, attempt > maximumAttempts { return nil }
        return backoff.delaySeconds(beforeAttempt: attempt, random: &random)
    }
}
