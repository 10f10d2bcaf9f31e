import MediaCore
import Testing
import TestSupport

/// The one backoff curve (outputs' reconnects, capture's re-opens): doubling steps, jitter in the
/// step's upper half, a cap.
@Suite struct BackoffTests {
    @Test func stepsDoubleWithJitterUpToTheCap() {
        let backoff = Backoff(initialDelaySeconds: 0.25, maximumDelaySeconds: 2)
        var random = SplitMix64(seed: 11)
        for (attempt, step) in [(0, 0.25), (1, 0.25), (2, 0.5), (3, 1.0), (4, 2.0), (5, 2.0), (1000, 2.0)] {
            let delay = backoff.delaySeconds(beforeAttempt: attempt, random: &random)
            #expect(delay >= step / 2 && delay <= step, "attempt \(attempt): \(delay)")
        }
    }

    @Test func aZeroOrInvertedCurveIsRaisedToOneThatGrows() {
        let backoff = Backoff(initialDelaySeconds: 0, maximumDelaySeconds: -1)
        #expect(backoff.initialDelaySeconds == 0.01 && backoff.maximumDelaySeconds == 0.01)
    }
}
