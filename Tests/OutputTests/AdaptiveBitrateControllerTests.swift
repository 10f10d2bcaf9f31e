import Output
import Testing

/// The bitrate an adapting output asks for, from its queue and the kernel's view of the socket.
@Suite struct AdaptiveBitrateControllerTests {
    @Test func adaptiveBitrateCutsOnCongestionAndRecoversWithBackoff() {
        var controller = AdaptiveBitrateController(settings: .init(targetBitsPerSecond: 2_000_000))
        var now: Int64 = 0
        func sample(queue: Int64, unsent: Int? = 0) -> Int? {
            now += 500_000_000
            return controller.update(.init(nowNanos: now, queuedMilliseconds: queue, unsentBytes: unsent, rttMicroseconds: 1000))
        }
        /// Clear samples until the bitrate changes: (new bitrate, seconds waited).
        func untilRaised() -> (Int?, Double) {
            var samples = 0
            while samples < 200 {
                samples += 1
                if let raised = sample(queue: 0) { return (raised, Double(samples) / 2) }
            }
            return (nil, Double(samples) / 2)
        }
        #expect(sample(queue: 10) == nil)
        #expect(sample(queue: 900) == 1_400_000)
        #expect(sample(queue: 900) == nil, "at most one cut a second")
        #expect(sample(queue: 900) == 980_000)
        #expect(sample(queue: 0, unsent: 200_000) == nil)
        // Kernel backlog alone (1.6 s of data unsent) is congestion too.
        #expect(sample(queue: 0, unsent: 200_000) == 686_000)
        // One congested spell: the first raise waits the initial 4 s hold, the next ones a second each.
        #expect(untilRaised() == (754_600, 4))
        #expect(untilRaised() == (830_060, 1))
        // Congestion right after a raise: the probe failed, so the hold doubles to 8 s.
        #expect(sample(queue: 900) == 581_042)
        #expect(untilRaised() == (639_146, 8))
    }

    @Test func adaptiveBitrateNeverGoesBelowTheMinimum() {
        var controller = AdaptiveBitrateController(settings: .init(targetBitsPerSecond: 1_000_000, minimumBitsPerSecond: 400_000))
        for second in 0..<20 {
            _ = controller.update(.init(nowNanos: Int64(second) * 1_000_000_000, queuedMilliseconds: 5000))
        }
        #expect(controller.bitsPerSecond == 400_000)
    }
}
