import Testing
@testable import CongestionControl

@Suite struct OveruseDetectorTests {
    @Test func aSustainedRisingTrendIsOveruseAndAFallingOneUnderuse() {
        var detector = OveruseDetector()
        var state = BandwidthUsage.normal
        for step in 0..<5 { state = detector.detect(modifiedTrend: 20 + Double(step), sendDeltaNanos: 10_000_000, nowNanos: Int64(step) * 10_000_000) }
        #expect(state == .overusing)
        #expect(detector.detect(modifiedTrend: -30, sendDeltaNanos: 10_000_000, nowNanos: 60_000_000) == .underusing)
        #expect(detector.detect(modifiedTrend: 0, sendDeltaNanos: 10_000_000, nowNanos: 70_000_000) == .normal)
    }

    @Test func oneSpikeIsNotOveruse() {
        var detector = OveruseDetector()
        #expect(detector.detect(modifiedTrend: 50, sendDeltaNanos: 33_000_000, nowNanos: 0) == .normal)
    }

    @Test func theThresholdFollowsAPersistentTrendUpAndStaysInRange() {
        var detector = OveruseDetector()
        for step in 0..<2000 { _ = detector.detect(modifiedTrend: 20, sendDeltaNanos: 33_000_000, nowNanos: Int64(step) * 33_000_000) }
        #expect(detector.thresholdMillis > 19 && detector.thresholdMillis <= 600)
        for step in 2000..<4000 { _ = detector.detect(modifiedTrend: 0, sendDeltaNanos: 33_000_000, nowNanos: Int64(step) * 33_000_000) }
        #expect(detector.thresholdMillis == OveruseDetector.thresholdRangeMillis.lowerBound)
    }
}
