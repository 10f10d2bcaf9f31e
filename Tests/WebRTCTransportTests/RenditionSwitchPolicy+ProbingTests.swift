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
        #expect(policy.wantsProbe(nowNanos: 21 * Self.second) == 3_125_000)
        // One that found room for 720p: up at its key frame.
        #expect(policy.observe(probeBitsPerSecond: 2_900_000, nowNanos: 22 * Self.second) == 0)
        #expect(policy.target == 0)
        _ = policy.admits(rendition: 0, isKeyFrame: true, ptsNanos: 2, nowNanos: 22 * Self.second)
        #expect(policy.current == 0 && policy.switches == 2)
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
