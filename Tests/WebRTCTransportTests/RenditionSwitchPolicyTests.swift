import Testing
@testable import WebRTCTransport

@Suite struct RenditionSwitchPolicyTests {
    static let second: Int64 = 1_000_000_000
    /// 720p at 2.5 Mbit/s, 360p at 600 kbit/s.
    static let bitrates = [2_500_000, 600_000]

    @Test func aFallingEstimateSwitchesDownAtTheLowerRenditionsKeyFrame() {
        var policy = RenditionSwitchPolicy(bitrates: Self.bitrates)
        do {
            let result = policy.admits(rendition: 0, isKeyFrame: true, ptsNanos: 0, nowNanos: 0)
            #expect(result)
        }
        do {
            let result = policy.admits(rendition: 1, isKeyFrame: true, ptsNanos: 0, nowNanos: 0)
            #expect(!result, "only the current rendition's frames")
        }
        do {
            let result = policy.observe(estimateBitsPerSecond: 1_700_000, nowNanos: Self.second)
            #expect(result == 1, "asks 360p for a key frame")
        }
        #expect(policy.target == 1)
        // Until that key frame, the viewer gets no more 720p frames: the link cannot carry them, and
        // they would queue ahead of the 360p key frame.
        do {
            let result = policy.admits(rendition: 0, isKeyFrame: false, ptsNanos: 33, nowNanos: Self.second)
            #expect(!result)
        }
        do {
            let result = policy.admits(rendition: 1, isKeyFrame: false, ptsNanos: 33, nowNanos: Self.second)
            #expect(!result)
        }
        do {
            let result = policy.observe(estimateBitsPerSecond: 1_600_000, nowNanos: Self.second + 1)
            #expect(result == nil, "asked once")
        }
        do {
            let result = policy.admits(rendition: 1, isKeyFrame: true, ptsNanos: 66, nowNanos: Self.second + 2)
            #expect(result)
        }
        do {
            let result = policy.admits(rendition: 0, isKeyFrame: false, ptsNanos: 99, nowNanos: Self.second + 3)
            #expect(!result)
        }
        #expect(policy.current == 1 && policy.target == nil && policy.switches == 1)
    }

    @Test func anOverdueKeyFrameIsAskedForAgain() {
        var policy = RenditionSwitchPolicy(bitrates: Self.bitrates)
        do {
            let result = policy.observe(estimateBitsPerSecond: 1_000_000, nowNanos: 0)
            #expect(result == 1)
        }
        do {
            let result = policy.observe(estimateBitsPerSecond: 1_000_000, nowNanos: Self.second / 2)
            #expect(result == nil)
        }
        do {
            let result = policy.observe(estimateBitsPerSecond: 1_000_000, nowNanos: Self.second)
            #expect(result == 1)
        }
    }

    @Test func upOnlyAfterTheEstimateHeldTheHigherRenditionForTheHoldTime() {
        var policy = RenditionSwitchPolicy(bitrates: Self.bitrates)
        _ = policy.observe(estimateBitsPerSecond: 800_000, nowNanos: 0)
        _ = policy.admits(rendition: 1, isKeyFrame: true, ptsNanos: 1, nowNanos: 0)
        // Above 2.5 M × 1.3 for 2 s, then a dip: the hold starts again.
        do {
            let result = policy.observe(estimateBitsPerSecond: 3_300_000, nowNanos: 1 * Self.second)
            #expect(result == nil)
        }
        do {
            let result = policy.observe(estimateBitsPerSecond: 3_300_000, nowNanos: 3 * Self.second)
            #expect(result == nil)
        }
        do {
            let result = policy.observe(estimateBitsPerSecond: 3_000_000, nowNanos: 3 * Self.second + 1)
            #expect(result == nil)
        }
        do {
            let result = policy.observe(estimateBitsPerSecond: 3_300_000, nowNanos: 4 * Self.second)
            #expect(result == nil)
        }
        do {
            let result = policy.observe(estimateBitsPerSecond: 3_300_000, nowNanos: 6 * Self.second)
            #expect(result == nil)
        }
        do {
            let result = policy.observe(estimateBitsPerSecond: 3_300_000, nowNanos: 7 * Self.second)
            #expect(result == 0)
        }
        do {
            let result = policy.admits(rendition: 0, isKeyFrame: true, ptsNanos: 2, nowNanos: 7 * Self.second)
            #expect(result)
        }
        #expect(policy.current == 0 && policy.switches == 2)
    }

    @Test func anEstimateBetweenTheThresholdsChangesNothing() {
        var policy = RenditionSwitchPolicy(bitrates: Self.bitrates)
        // 1.75 M…3.2 M on 720p: stays; 0.42…3.2 M on 360p: stays.
        for step in 0..<100 {
            do {
                let result = policy.observe(estimateBitsPerSecond: 1_750_000 + step * 14_000, nowNanos: Int64(step) * Self.second / 10)
                #expect(result == nil)
            }
        }
        _ = policy.observe(estimateBitsPerSecond: 1_500_000, nowNanos: 11 * Self.second)
        _ = policy.admits(rendition: 1, isKeyFrame: true, ptsNanos: 1, nowNanos: 11 * Self.second)
        for step in 0..<100 {
            do {
                let result = policy.observe(estimateBitsPerSecond: 420_000 + step * 28_000, nowNanos: 11 * Self.second + Int64(step) * Self.second / 10)
                #expect(result == nil)
            }
        }
        #expect(policy.switches == 1)
    }

    @Test func aFailedUpSwitchDoublesTheHold() {
        var policy = RenditionSwitchPolicy(bitrates: Self.bitrates)
        _ = policy.observe(estimateBitsPerSecond: 800_000, nowNanos: 0)
        _ = policy.admits(rendition: 1, isKeyFrame: true, ptsNanos: 1, nowNanos: 0)
        _ = policy.observe(estimateBitsPerSecond: 3_300_000, nowNanos: Self.second)
        do {
            let result = policy.observe(estimateBitsPerSecond: 3_300_000, nowNanos: 4 * Self.second)
            #expect(result == 0)
        }
        _ = policy.admits(rendition: 0, isKeyFrame: true, ptsNanos: 2, nowNanos: 4 * Self.second)
        // The link could not take it: down again 2 s later.
        do {
            let result = policy.observe(estimateBitsPerSecond: 1_000_000, nowNanos: 6 * Self.second)
            #expect(result == 1)
        }
        _ = policy.admits(rendition: 1, isKeyFrame: true, ptsNanos: 3, nowNanos: 6 * Self.second)
        #expect(policy.upHoldNanos == 2 * RenditionSwitchPolicy.Settings().upHoldNanos)
        _ = policy.observe(estimateBitsPerSecond: 3_300_000, nowNanos: 7 * Self.second)
        do {
            let result = policy.observe(estimateBitsPerSecond: 3_300_000, nowNanos: 10 * Self.second)
            #expect(result == nil, "3 s no longer enough")
        }
        do {
            let result = policy.observe(estimateBitsPerSecond: 3_300_000, nowNanos: 13 * Self.second)
            #expect(result == 0)
        }
    }

    @Test func aVeryLowEstimateGoesToTheLowestAndTheKeyFrameMustNotBeOlder() {
        var policy = RenditionSwitchPolicy(bitrates: [6_000_000, 3_000_000, 1_000_000])
        _ = policy.admits(rendition: 0, isKeyFrame: true, ptsNanos: 100, nowNanos: 0)
        do {
            let result = policy.observe(estimateBitsPerSecond: 500_000, nowNanos: 1)
            #expect(result == 2)
        }
        do {
            let result = policy.admits(rendition: 2, isKeyFrame: true, ptsNanos: 99, nowNanos: 2)
            #expect(!result, "older than what the viewer has: RTP time would step back")
        }
        do {
            let result = policy.admits(rendition: 2, isKeyFrame: true, ptsNanos: 100, nowNanos: 3)
            #expect(result)
        }
        #expect(policy.current == 2)
    }

    @Test func timeOnEachRenditionIsCounted() {
        var policy = RenditionSwitchPolicy(bitrates: Self.bitrates)
        policy.accountTime(nowNanos: 0)
        _ = policy.observe(estimateBitsPerSecond: 1_000_000, nowNanos: 2 * Self.second)
        _ = policy.admits(rendition: 1, isKeyFrame: true, ptsNanos: 1, nowNanos: 3 * Self.second)
        policy.accountTime(nowNanos: 8 * Self.second)
        #expect(policy.nanosOnRendition == [3 * Self.second, 5 * Self.second])
    }

    @Test func oneRenditionNeverSwitches() {
        var policy = RenditionSwitchPolicy(bitrates: [1_000_000])
        do {
            let result = policy.observe(estimateBitsPerSecond: 100_000, nowNanos: 0)
            #expect(result == nil)
        }
        do {
            let result = policy.admits(rendition: 0, isKeyFrame: false, ptsNanos: 0, nowNanos: 0)
            #expect(result)
        }
    }
}

extension RenditionSwitchPolicyTests {
    @Test func anUndershootingEncoderLowersTheDownThreshold() {
        var policy = RenditionSwitchPolicy(bitrates: Self.bitrates)
        // 720p frames of 5 kB at 30 fps: 1.2 Mbit/s, not the 2.5 configured.
        for frame in 0...60 {
            _ = policy.admits(rendition: 0, isKeyFrame: frame == 0, ptsNanos: Int64(frame), sizeBytes: 5000, nowNanos: Int64(frame) * Self.second / 30)
        }
        #expect(policy.measuredBitsPerSecond.map { (1_100_000...1_300_000).contains($0) } ?? false)
        // 0.9 Mbit/s is below 0.7 × 2.5 M but not below 0.7 × the 1.2 M actually sent: stays.
        let held = policy.observe(estimateBitsPerSecond: 900_000, nowNanos: 3 * Self.second)
        #expect(held == nil)
        let down = policy.observe(estimateBitsPerSecond: 800_000, nowNanos: 3 * Self.second + 1)
        #expect(down == 1)
    }
}
