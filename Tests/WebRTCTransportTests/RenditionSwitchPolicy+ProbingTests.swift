import Testing
@testable import WebRTCTransport

extension RenditionSwitchPolicyTests {
    static var probing: RenditionSwitchPolicy.Settings {
        var settings = RenditionSwitchPolicy.Settings()
        settings.upRequiresProbe = true
        return settings
    }

    /// On 360p: a probe is asked for 10 s after arriving, at 1.25 × 720p's bitrate, then every 10 s;
    /// a high estimate alone never switches up; a probe result ≥ 1.1 × 720p's bitrate does.
    @Test func withProbingUpSwitchesWaitForAProbesWord() {
        var policy = RenditionSwitchPolicy(bitrates: Self.bitrates, settings: Self.probing)
        _ = policy.admits(rendition: 0, isKeyFrame: true, ptsNanos: 0, nowNanos: 0)
        #expect(policy.wantsProbe(nowNanos: 0) == nil, "nothing to probe for on the top rendition")
        _ = policy.observe(estimateBitsPerSecond: 500_000, nowNanos: Self.second)
        _ = policy.admits(rendition: 1, isKeyFrame: true, ptsNanos: 1, nowNanos: Self.second)
        #expect(policy.current == 1)
        // An estimate that grew while 360p was sent is no evidence.
        for second in 2...30 { _ = policy.observe(estimateBitsPerSecond: 5_000_000, nowNanos: Int64(second) * Self.second) }
        #expect(policy.target == nil)
        #expect(policy.wantsProbe(nowNanos: 10 * Self.second) == nil)
        #expect(policy.wantsProbe(nowNanos: 11 * Self.second) == 3_125_000)
        #expect(policy.wantsProbe(nowNanos: 12 * Self.second) == nil, "not again within the interval")
        // A probe that found a narrow link: nothing.
        #expect(policy.observe(probeBitsPerSecond: 1_000_000, nowNanos: 12 * Self.second) == nil)
        #expect(policy.wantsProbe(nowNanos: 21 * Self.second) == 3_125_000, "one failed probe may be bad luck: the next comes as soon")
        // One that found room for 720p: up at its key frame.
        #expect(policy.observe(probeBitsPerSecond: 2_900_000, nowNanos: 22 * Self.second) == 0)
        #expect(policy.target == 0)
        _ = policy.admits(rendition: 0, isKeyFrame: true, ptsNanos: 2, nowNanos: 22 * Self.second)
        #expect(policy.current == 0 && policy.switches == 2)
    }

    /// Asks `policy` each second of `seconds` whether to probe and answers each probe 0.3 s later
    /// with `result`: the seconds it asked at.
    static func probeSeconds(_ policy: inout RenditionSwitchPolicy, over seconds: ClosedRange<Int>, answering result: Int) -> [Int] {
        var asked: [Int] = []
        for second in seconds where policy.wantsProbe(nowNanos: Int64(second) * Self.second) != nil {
            asked.append(second)
            _ = policy.observe(probeBitsPerSecond: result, nowNanos: Int64(second) * Self.second + 300_000_000)
        }
        return asked
    }

    /// On a link that stays narrow, every probe costs a moment of loss: after two that failed in a
    /// row, each more doubles the wait before the next (10, 10, 20, 40 s), up to a minute; arriving
    /// on another rendition starts again at 10 s, and a probe that holds the next rendition still
    /// switches up.
    @Test func failedProbesSpaceTheNextOutToAMinute() {
        var policy = RenditionSwitchPolicy(bitrates: [2_500_000, 600_000, 200_000], settings: Self.probing)
        _ = policy.admits(rendition: 0, isKeyFrame: true, ptsNanos: 0, nowNanos: 0)
        _ = policy.observe(estimateBitsPerSecond: 500_000, nowNanos: Self.second)
        _ = policy.admits(rendition: 1, isKeyFrame: true, ptsNanos: 1, nowNanos: Self.second)
        #expect(policy.current == 1)
        let asked = Self.probeSeconds(&policy, over: 2...300, answering: 1_000_000)
        #expect(asked == [11, 21, 41, 81, 141, 201, 261], "\(asked)")
        #expect(policy.probesFailed == 7 && policy.probesFailedInARow == 7)
        // Down to 180p and back on 360p: the count in a row starts again.
        _ = policy.observe(estimateBitsPerSecond: 100_000, nowNanos: 301 * Self.second)
        _ = policy.admits(rendition: 2, isKeyFrame: true, ptsNanos: 2, nowNanos: 301 * Self.second)
        #expect(policy.current == 2 && policy.probesFailedInARow == 0)
        #expect(Self.probeSeconds(&policy, over: 302...340, answering: 5_000_000) == [311])
        #expect(policy.target == 1, "a probe that holds 360p still switches up after seven that failed")
        _ = policy.admits(rendition: 1, isKeyFrame: true, ptsNanos: 3, nowNanos: 312 * Self.second)
        #expect(policy.current == 1 && policy.probesFailed == 7)
        #expect(Self.probeSeconds(&policy, over: 313...370, answering: 1_000_000) == [322, 332, 352], "back to 10 s, 10 s, then 20 s")
    }

    @Test func withoutProbingTheEstimateAloneStillSwitchesUpAndProbesAreNeverAsked() {
        var policy = RenditionSwitchPolicy(bitrates: Self.bitrates)
        _ = policy.admits(rendition: 0, isKeyFrame: true, ptsNanos: 0, nowNanos: 0)
        _ = policy.observe(estimateBitsPerSecond: 500_000, nowNanos: Self.second)
        _ = policy.admits(rendition: 1, isKeyFrame: true, ptsNanos: 1, nowNanos: Self.second)
        #expect(policy.wantsProbe(nowNanos: 30 * Self.second) == nil)
        #expect(policy.observe(probeBitsPerSecond: 5_000_000, nowNanos: 30 * Self.second) == nil)
        var asked: Int?
        for second in 31...35 { asked = asked ?? policy.observe(estimateBitsPerSecond: 3_500_000, nowNanos: Int64(second) * Self.second) }
        #expect(asked == 0)
    }
}
