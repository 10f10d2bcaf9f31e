/// When an output (RTMP, WHIP) tries again after a connection is lost: exponential backoff with jitter,
/// so a fleet of encoders that lost the same ingest does not reconnect in lock-step (AWS "full jitter"
/// bounded below by half the step).
public struct ReconnectPolicy: Sendable, Hashable {
    public var initialDelaySeconds: Double
    public var maximumDelaySeconds: Double
    /// Attempts after a loss before giving up; nil retries for ever (a headless broadcaster's default).
    public var maximumAttempts: Int?

    public init(initialDelaySeconds: Double = 1, maximumDelaySeconds: Double = 30, maximumAttempts: Int? = nil) {
        self.initialDelaySeconds = max(0.01, initialDelaySeconds)
        self.maximumDelaySeconds = max(self.initialDelaySeconds, maximumDelaySeconds)
        self.maximumAttempts = maximumAttempts
    }

    /// The wait before attempt `attempt` (1-based), or nil when attempts are used up.
    public func delaySeconds(beforeAttempt attempt: Int, random: inout some RandomNumberGenerator) -> Double? {
        if let maximumAttempts, attempt > maximumAttempts { return nil }
        let doublings = min(max(attempt - 1, 0), 30)
        let step = min(maximumDelaySeconds, initialDelaySeconds * Double(1 << doublings))
        return step / 2 + Double.random(in: 0...(step / 2), using: &random)
    }
}
