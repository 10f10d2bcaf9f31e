import Capture
import MediaCore
import Testing
import TestSupport

/// A lost camera is re-opened on the shared backoff: quickly first, then at the cap, and quickly
/// again after the next loss. No camera and no clock: times are passed in.
@Suite struct ReopenScheduleTests {
    @Test func attemptsFollowTheSharedBackoffFromTheLoss() {
        let backoff = Backoff(initialDelaySeconds: 0.25, maximumDelaySeconds: 2)
        var schedule = ReopenSchedule(backoff: backoff, random: SplitMix64(seed: 7))
        var reference = SplitMix64(seed: 7)
        var now: Int64 = 5_000_000_000
        schedule.lost(atNanos: now)
        for attempt in 1...6 {
            let delay = backoff.delaySeconds(beforeAttempt: attempt, random: &reference)
            #expect(schedule.nextAttemptNanos == now + Int64(delay * 1e9), "attempt \(attempt)")
            let early = schedule.attemptIsDue(atNanos: schedule.nextAttemptNanos - 1)
            #expect(!early, "not before its time")
            now = schedule.nextAttemptNanos
            let due = schedule.attemptIsDue(atNanos: now)
            #expect(due)
        }
        #expect(schedule.attempt == 7)
    }

    @Test func theDefaultRetriesFastFirstThenAtMostEveryTwoSeconds() {
        var schedule = ReopenSchedule(backoff: ResilientSource.defaultReopen, random: SplitMix64(seed: 1))
        var now: Int64 = 0
        schedule.lost(atNanos: now)
        var delays: [Double] = []
        for _ in 0..<8 {
            delays.append(Double(schedule.nextAttemptNanos - now) / 1e9)
            now = schedule.nextAttemptNanos
            _ = schedule.attemptIsDue(atNanos: now)
        }
        #expect(delays[0] >= 0.125 && delays[0] <= 0.25, "\(delays)")
        #expect(delays.allSatisfy { $0 <= 2 }, "\(delays)")
        #expect(delays.suffix(3).allSatisfy { $0 >= 1 }, "backs off to the cap: \(delays)")
    }

    @Test func aNewLossStartsTheBackoffOver() {
        var schedule = ReopenSchedule(backoff: Backoff(initialDelaySeconds: 1, maximumDelaySeconds: 8), random: SplitMix64(seed: 3))
        schedule.lost(atNanos: 0)
        for second in 1...60 { _ = schedule.attemptIsDue(atNanos: Int64(second) * 1_000_000_000) }
        #expect(schedule.attempt > 3)
        let lostAgain: Int64 = 100_000_000_000
        schedule.lost(atNanos: lostAgain)
        #expect(schedule.attempt == 1)
        #expect(schedule.nextAttemptNanos - lostAgain <= 1_000_000_000)
    }
}
