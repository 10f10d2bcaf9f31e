/// How long to wait before trying again after a failure: exponential backoff with jitter. The one
/// definition for every retry in livepush — an output reconnecting to its server (through
/// `ReconnectPolicy`) and a camera being re-opened (`ResilientSource`) — so the curve is tuned,
/// and tested, in one place.
///
/// The step doubles from `initialDelaySeconds` up to `maximumDelaySeconds`; the wait is drawn from
/// the step's upper half (AWS "full jitter" bounded below by half the step), so a fleet of encoders
/// that lost the same ingest does not come back in lock-step, while a single retry is never much
/// earlier than the step says.
public struct Backoff: Sendable, Hashable {
    public let initialDelaySeconds: Double
    public let maximumDelaySeconds: Double

    /// A delay under 10 ms is raised to it (a zero step would never grow); the cap is at least the first step.
    public init(initialDelaySeconds: Double, maximumDelaySeconds: Double) {
        self.initialDelaySeconds = max(0.01, initialDelaySeconds)
        self.maximumDelaySeconds = max(self.initialDelaySeconds, maximumDelaySeconds)
    }

    /// The wait before attempt `attempt` (1 is the first retry), in seconds.
    public func delaySeconds(beforeAttempt attempt: Int, random: inout some RandomNumberGenerator) -> Double {
        let doublings = min(max(attempt - 1, 0), 30)
        let step = min(maximumDelaySeconds, initialDelaySeconds * Double(1 << doublings))
        return step / 2 + Double.random(in: 0...(step / 2), using: &random)
    }
}
