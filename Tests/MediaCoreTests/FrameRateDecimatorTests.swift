import MediaCore
import Testing

@Suite struct FrameRateDecimatorTests {
    private func kept(fps: Double?, sourceFPS: Double, frames: Int, jitterNanos: [Int64] = [0]) -> Int {
        var decimator = FrameRateDecimator(maximumFramesPerSecond: fps)
        let interval = 1e9 / sourceFPS
        return (0..<frames).filter { index in
            decimator.keeps(timestampNanos: Int64(Double(index) * interval) + jitterNanos[index % jitterNanos.count])
        }.count
    }

    @Test func halvesAndThirdsTheRate() {
        #expect(kept(fps: 30, sourceFPS: 60, frames: 600) == 300)
        #expect(kept(fps: 20, sourceFPS: 60, frames: 600) == 200)
        #expect(kept(fps: 15, sourceFPS: 30, frames: 300) == 150)
    }

    @Test func keepsEveryFrameAtOrBelowTheTarget() {
        #expect(kept(fps: nil, sourceFPS: 30, frames: 90) == 90)
        #expect(kept(fps: 30, sourceFPS: 30, frames: 90, jitterNanos: [0, 300_000, -300_000]) == 90)
        #expect(kept(fps: 60, sourceFPS: 30, frames: 90) == 90)
    }

    @Test func jitterDoesNotDriftTheKeptRate() {
        let jitter: [Int64] = [0, 4_000_000, -3_000_000, 2_500_000, -4_500_000]
        #expect(kept(fps: 15, sourceFPS: 30, frames: 3000, jitterNanos: jitter) == 1500)
    }

    @Test func aStallRestartsTheScheduleWithoutABurst() {
        var decimator = FrameRateDecimator(maximumFramesPerSecond: 10)
        let first = decimator.keeps(timestampNanos: 0)
        #expect(first)
        // Two seconds of nothing, then 30 fps again: one frame per 100 ms, not a catch-up burst.
        let resumed = (0..<30).filter { decimator.keeps(timestampNanos: 2_000_000_000 + Int64($0) * 33_333_333) }.count
        #expect(resumed == 10)
    }

    @Test func changingTheTargetTakesEffectAtOnce() {
        var decimator = FrameRateDecimator(maximumFramesPerSecond: 10)
        var count = (0..<60).filter { decimator.keeps(timestampNanos: Int64($0) * 16_666_667) }.count
        #expect(count == 10)
        decimator.setMaximum(nil)
        count = (60..<120).filter { decimator.keeps(timestampNanos: Int64($0) * 16_666_667) }.count
        #expect(count == 60)
    }
}
