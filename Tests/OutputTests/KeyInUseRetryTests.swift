import Output
import Testing

/// ``KeyInUseRetry`` with a clock the test moves: an "in use" refusal soon after a loss of ours is
/// retried every interval within the window, and nothing else is rushed.
@Suite struct KeyInUseRetryTests {
    static let second: Int64 = 1_000_000_000
    static let interval = KeyInUseRetry.Settings.defaultIntervalSeconds

    /// A loss at t = 10 s, then refusals 250 ms apart (the retries' own spacing): each is retried
    /// after the interval, counted, and said in the status, until the window has passed.
    @Test func refusalsAfterOurLossAreRetriedEveryIntervalWithinTheWindow() {
        var retry = KeyInUseRetry(settings: .init(windowSeconds: 2))
        let lost = 10 * Self.second
        retry.ownConnectionLost(atNanos: lost)
        #expect(retry.stateReason == nil, "nothing refused yet")
        var now = lost + Self.second / 2
        var decisions: [KeyInUseRetry.Decision] = []
        while now - lost <= 3 * Self.second {
            decisions.append(retry.refusedInUse(atNanos: now))
            now += Self.second / 4
        }
        // Refusals at 0.5, 0.75 … 1.75 s retry at up to 2 s, inside the window; the one at 2 s would retry past it.
        let quick = (1...6).map { KeyInUseRetry.Decision.retry(afterSeconds: Self.interval, refusal: $0) }
        #expect(Array(decisions.prefix(6)) == quick)
        #expect(decisions.dropFirst(6).allSatisfy { $0 == .backoff }, "\(decisions)")
        #expect(retry.phase == .expired(refusals: 7), "the first refusal past the window is counted, the later ones take the backoff")
        #expect(retry.stateReason == "key still in use 2 s after our connection was lost (7 refusals): back to the normal backoff")
    }

    @Test func theStatusCountsTheRefusalsAndSaysTheInterval() {
        var retry = KeyInUseRetry()
        retry.ownConnectionLost(atNanos: 0)
        _ = retry.refusedInUse(atNanos: Self.second)
        #expect(retry.stateReason == "key in use (1 refusal since our connection was lost), retrying every 250 ms")
        _ = retry.refusedInUse(atNanos: Self.second + Self.second / 4)
        #expect(retry.stateReason == "key in use (2 refusals since our connection was lost), retrying every 250 ms")
    }

    /// A refusal with no loss of ours before it (the first connect) is someone else's stream: backoff.
    @Test func aFirstConnectIsNotRushed() {
        var retry = KeyInUseRetry()
        #expect(retry.refusedInUse(atNanos: Self.second) == .backoff)
        #expect(retry.phase == .idle && retry.stateReason == nil)
    }

    /// A connection that goes live resets it: a later refusal needs a new loss of ours, whose window
    /// starts at that loss.
    @Test func successResetsAndANewLossStartsANewWindow() {
        var retry = KeyInUseRetry(settings: .init(windowSeconds: 5))
        retry.ownConnectionLost(atNanos: 0)
        #expect(retry.refusedInUse(atNanos: Self.second) == .retry(afterSeconds: Self.interval, refusal: 1))
        retry.connected()
        #expect(retry.phase == .idle && retry.stateReason == nil)
        #expect(retry.refusedInUse(atNanos: 2 * Self.second) == .backoff, "refused after going live, with no loss since")
        retry.ownConnectionLost(atNanos: 100 * Self.second)
        #expect(retry.refusedInUse(atNanos: 104 * Self.second) == .retry(afterSeconds: Self.interval, refusal: 1))
        // Expired windows end at the next live connection too.
        #expect(retry.refusedInUse(atNanos: 106 * Self.second) == .backoff)
        retry.connected()
        retry.ownConnectionLost(atNanos: 200 * Self.second)
        #expect(retry.refusedInUse(atNanos: 201 * Self.second) == .retry(afterSeconds: Self.interval, refusal: 1))
    }

    @Test func aZeroWindowTurnsItOff() {
        var retry = KeyInUseRetry(settings: .init(windowSeconds: 0))
        retry.ownConnectionLost(atNanos: 0)
        #expect(retry.refusedInUse(atNanos: 1) == .backoff)
        #expect(retry.stateReason == nil)
    }

    /// The verdict an output acts on: rushed refusals carry the seconds and no warning; the first
    /// refusal past the window and every one after it warn with the status line; a first connect does neither.
    @Test func verdictsSayWhenToRetryAndWarnOnceTheWindowHasPassed() {
        var retry = KeyInUseRetry(settings: .init(windowSeconds: 1))
        let first = retry.judgeRefusal(atNanos: 0)
        #expect(first.retryAfterSeconds == nil && first.stateReason == nil && first.warning == nil)
        retry.ownConnectionLost(atNanos: 0)
        let rushed = retry.judgeRefusal(atNanos: Self.second / 2)
        #expect(rushed.retryAfterSeconds == Self.interval && rushed.refusal == 1 && rushed.warning == nil)
        #expect(rushed.stateReason == "key in use (1 refusal since our connection was lost), retrying every 250 ms")
        let expiry = "key still in use 1 s after our connection was lost (2 refusals): back to the normal backoff"
        let passed = retry.judgeRefusal(atNanos: Self.second)
        #expect(passed.retryAfterSeconds == nil && passed.stateReason == expiry && passed.warning == expiry)
        #expect(retry.judgeRefusal(atNanos: 2 * Self.second).warning == expiry)
    }
}
