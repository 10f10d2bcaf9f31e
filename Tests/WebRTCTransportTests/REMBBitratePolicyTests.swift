import Testing
import WebRTCTransport

/// Viewers' REMB estimates → the shared encoder's bitrate: the slowest viewer wins, within bounds,
/// at most once a second, and back up when the estimates rise or the slow viewer leaves.
@Suite struct REMBBitratePolicyTests {
    static let second: Int64 = 1_000_000_000

    static func policy() -> REMBBitratePolicy {
        REMBBitratePolicy(configuredBitsPerSecond: 2_500_000, minimumBitsPerSecond: 300_000)
    }

    @Test func withoutEstimatesTheConfiguredBitrateStands() {
        var policy = Self.policy()
        #expect(policy.decide(nowNanos: 0) == nil)
        #expect(policy.currentBitsPerSecond == 2_500_000)
    }

    @Test func theSmallestEstimateWinsWithHeadroom() {
        var policy = Self.policy()
        policy.record(estimateBitsPerSecond: 5_000_000, viewer: "fast")
        policy.record(estimateBitsPerSecond: 1_000_000, viewer: "slow")
        #expect(policy.decide(nowNanos: 0) == 850_000)
        #expect(policy.currentBitsPerSecond == 850_000)
    }

    @Test(arguments: [(UInt64(100_000), 300_000), (UInt64(1), 300_000), (UInt64(50_000_000), 2_500_000), (UInt64(3_000_000), 2_500_000)])
    func theTargetStaysWithinTheBounds(estimate: UInt64, expected: Int) {
        var policy = Self.policy()
        policy.record(estimateBitsPerSecond: estimate, viewer: "a")
        #expect(policy.target == expected)
    }

    @Test func changesAreRateLimitedToOneASecond() {
        var policy = Self.policy()
        policy.record(estimateBitsPerSecond: 1_000_000, viewer: "a")
        #expect(policy.decide(nowNanos: 10 * Self.second) == 850_000)
        policy.record(estimateBitsPerSecond: 600_000, viewer: "a")
        #expect(policy.decide(nowNanos: 10 * Self.second + Self.second / 2) == nil, "half a second later")
        #expect(policy.decide(nowNanos: 11 * Self.second) == 510_000)
    }

    @Test func smallMovesAreIgnoredButReturningToTheCeilingIsNot() {
        var policy = Self.policy()
        policy.record(estimateBitsPerSecond: 1_000_000, viewer: "a")
        #expect(policy.decide(nowNanos: 0) == 850_000)
        policy.record(estimateBitsPerSecond: 1_020_000, viewer: "a")
        #expect(policy.decide(nowNanos: 5 * Self.second) == nil, "2 % is within the hysteresis")
        policy.record(estimateBitsPerSecond: 2_000_000, viewer: "a")
        #expect(policy.decide(nowNanos: 6 * Self.second) == 1_700_000, "raised back as the estimate rises")
        policy.remove(viewer: "a")
        #expect(policy.decide(nowNanos: 7 * Self.second) == 2_500_000, "the slow viewer left")
    }

    @Test func aMinimumAboveTheConfiguredBitrateIsLoweredToIt() {
        var policy = REMBBitratePolicy(configuredBitsPerSecond: 1_000_000, minimumBitsPerSecond: 5_000_000)
        policy.record(estimateBitsPerSecond: 10_000, viewer: "a")
        #expect(policy.minimumBitsPerSecond == 1_000_000)
        #expect(policy.decide(nowNanos: 0) == nil, "pinned at the configured bitrate")
    }
}
