import MediaCore

/// When a lost camera is tried again: the shared ``Backoff`` counted from the loss, starting over
/// at the next loss. Pure (times come in, decisions go out), so the delays are tested without a camera.
public struct ReopenSchedule<Random: RandomNumberGenerator & Sendable>: Sendable {
    public let backoff: Backoff
    private var random: Random
    /// Re-open attempts scheduled since the loss (1 is the first).
    public private(set) var attempt = 0
    public private(set) var nextAttemptNanos: Int64 = 0

    public init(backoff: Backoff, random: Random) {
        self.backoff = backoff
        self.random = random
    }

    /// The camera was lost at `nowNanos`: the first attempt comes after the backoff's first step.
    public mutating func lost(atNanos nowNanos: Int64) {
        attempt = 0
        scheduleNext(after: nowNanos)
    }

    /// Whether a re-open attempt is due at `nowNanos`; when it is, the one after it is scheduled.
    public mutating func attemptIsDue(atNanos nowNanos: Int64) -> Bool {
        guard nowNanos >= nextAttemptNanos else { return false }
        scheduleNext(after: nowNanos)
        return true
    }

    private mutating func scheduleNext(after nowNanos: Int64) {
        attempt += 1
        nextAttemptNanos = nowNanos + Int64(backoff.delaySeconds(beforeAttempt: attempt, random: &random) * 1e9)
    }
}
