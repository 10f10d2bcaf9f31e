import Testing
@testable import CongestionControl

@Suite struct ArrivalGroupAccumulatorTests {
    @Test func aFramesBurstIsOneGroupAndTheDeltaComparesLastPackets() {
        var groups = ArrivalGroupAccumulator()
        let ms: Int64 = 1_000_000
        // Frame 1: three packets sent at 0 ms, arriving 10, 11, 12 ms.
        for arrival in [10, 11, 12] { #expect(groups.add(sendTimeNanos: 0, arrivalTimeNanos: Int64(arrival) * ms) == nil) }
        // Frame 2 at 33 ms arrives 45, 47 ms: the first packet of frame 3 closes it.
        #expect(groups.add(sendTimeNanos: 33 * ms, arrivalTimeNanos: 45 * ms) == nil)
        #expect(groups.add(sendTimeNanos: 33 * ms, arrivalTimeNanos: 47 * ms) == nil)
        let first = groups.add(sendTimeNanos: 66 * ms, arrivalTimeNanos: 80 * ms)
        #expect(first == .init(sendDeltaNanos: 33 * ms, arrivalDeltaNanos: 35 * ms, arrivalTimeNanos: 47 * ms))
        #expect(first?.delayVariationNanos == 2 * ms)
        let delta = groups.add(sendTimeNanos: 100 * ms, arrivalTimeNanos: 112 * ms)
        #expect(delta == .init(sendDeltaNanos: 33 * ms, arrivalDeltaNanos: 33 * ms, arrivalTimeNanos: 80 * ms))
        #expect(delta?.delayVariationNanos == 0)
    }
}
