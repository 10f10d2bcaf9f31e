import MediaCore
import Testing

/// `livepush probe`'s arithmetic: per-second windows of receive-minus-capture times and their figures.
@Suite struct LatencyProbeTests {
    static let ms: Int64 = 1_000_000

    @Test func aWindowSummarizesMinimumMedianP99AndMaximum() throws {
        var window = LatencyWindow(expectedSamples: 4)
        #expect(window.summarize() == nil)
        for latency: Int64 in [40, 10, 30, 20] { window.add(nanoseconds: latency * Self.ms) }
        let evenSummary = window.summarize()
        let even = try #require(evenSummary)
        #expect(even.frames == 4 && even.minimumMilliseconds == 10 && even.medianMilliseconds == 25 && even.maximumMilliseconds == 40)
        #expect(even.p99Milliseconds == 40)
        window.reset()
        // 1…200 ms: median between the 100th and 101st, p99 the 198th (nearest rank).
        for latency in (1...200).reversed() { window.add(nanoseconds: Int64(latency) * Self.ms) }
        let manySummary = window.summarize()
        let many = try #require(manySummary)
        #expect(many.frames == 200 && many.medianMilliseconds == 100.5 && many.p99Milliseconds == 198 && many.minimumMilliseconds == 1)
    }

    @Test func framesFallIntoTheSecondTheyArriveIn() throws {
        let start: Int64 = 5_000 * Self.ms
        var probe = LatencyProbe(expectedSeconds: 3, started: start)
        #expect(probe.elapsedSeconds(at: start) == nil)
        var closed: [LatencyProbe.Second] = []
        // Three frames a second for 2.5 s, each 50, 60 or 70 ms late; the wall clock is 1 h ahead of monotonic.
        let wallOffset: Int64 = 3_600_000 * Self.ms
        for frame in 0..<8 {
            let received = start + 100 * Self.ms + Int64(frame) * 334 * Self.ms
            let latency = Int64(50 + 10 * (frame % 3)) * Self.ms
            if let second = probe.add(captureWallClock: received + wallOffset - latency, receivedWallClock: received + wallOffset,
                                      receivedMonotonic: received) {
                closed.append(second)
            }
        }
        #expect(closed.map(\.index) == [1, 2])
        #expect(closed.map(\.summary.frames) == [3, 3])
        #expect(closed.allSatisfy { $0.summary.minimumMilliseconds == 50 && $0.summary.medianMilliseconds == 60 && $0.summary.maximumMilliseconds == 70 })
        let lastSecond = probe.finish()
        let last = try #require(lastSecond)
        #expect(last.index == 3 && last.summary.frames == 2)
        #expect(probe.finish() == nil)
        let total = probe.total()
        #expect(total?.frames == 8)
        #expect(probe.elapsedSeconds(at: start + 1_100 * Self.ms) == 1)
    }

    @Test func aSecondWithoutFramesIsSkipped() {
        var probe = LatencyProbe(expectedSeconds: 5, started: 0)
        _ = probe.add(captureWallClock: 0, receivedWallClock: 10 * Self.ms, receivedMonotonic: 0)
        let closed = probe.add(captureWallClock: 0, receivedWallClock: 20 * Self.ms, receivedMonotonic: 3_500 * Self.ms)
        #expect(closed?.index == 1 && closed?.summary.frames == 1)
        #expect(probe.finish()?.index == 4)
    }

    @Test func noTimedFrameMeansNoTotal() {
        var probe = LatencyProbe(expectedSeconds: 1, started: 0)
        #expect(probe.finish() == nil)
        #expect(probe.total() == nil)
    }
}
