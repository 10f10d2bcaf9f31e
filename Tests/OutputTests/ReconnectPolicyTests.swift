import Output
import Testing
import TestSupport

/// Backoff between reconnect attempts: doubling steps with jitter, and giving up after the limit.
@Suite struct ReconnectPolicyTests {
    @Test func backoffDoublesWithJitterUpToTheMaximum() throws {
        let policy = ReconnectPolicy(initialDelaySeconds: 1, maximumDelaySeconds: 8)
        var random = SplitMix64(seed: 42)
        for (attempt, step) in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 8.0), (40, 8.0)] {
            let delay = try #require(policy.delaySeconds(beforeAttempt: attempt, random: &random))
            #expect(delay >= step / 2 && delay <= step, "attempt \(attempt): \(delay)")
        }
    }

    @Test func backoffGivesUpAfterTheLimit() {
        let policy = ReconnectPolicy(maximumAttempts: 2)
        var random = SplitMix64(seed: 1)
        #expect(policy.delaySeconds(beforeAttempt: 2, random: &random) != nil)
        #expect(policy.delaySeconds(beforeAttempt: 3, random: &random) == nil)
    }
}
