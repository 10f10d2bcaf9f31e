import Pipeline
import Synchronization
import Testing

/// Several outputs adapting to their links share one encoder: it runs at the lowest limit, never
/// above the configured bitrate, and is told only on a change.
@Suite struct BitrateArbiterTests {
    final class Applied: Sendable {
        let values = Mutex<[Int]>([])
    }

    @Test func theLowestLimitWinsAndLiftingOneRestoresTheNext() {
        let applied = Applied()
        let arbiter = BitrateArbiter(configuredBitsPerSecond: 2_500_000) { bits in applied.values.withLock { $0.append(bits) } }
        arbiter.limit(1_000_000, source: 0)  // a slow RTMP link
        arbiter.limit(1_800_000, source: 1)  // a viewer's REMB: higher, so no change
        arbiter.limit(700_000, source: 0)
        arbiter.limit(nil, source: 0)  // the link recovered: the viewer's limit now holds
        arbiter.limit(nil, source: 1)
        #expect(applied.values.withLock { $0 } == [1_000_000, 700_000, 1_800_000, 2_500_000])
        let summary = arbiter.summary
        #expect(summary.bitsPerSecond == 2_500_000 && summary.lowestBitsPerSecond == 700_000 && summary.changes == 4)
    }

    @Test func neverAboveTheConfiguredBitrate() {
        let applied = Applied()
        let arbiter = BitrateArbiter(configuredBitsPerSecond: 2_000_000) { bits in applied.values.withLock { $0.append(bits) } }
        arbiter.limit(3_000_000, source: 0)
        #expect(arbiter.bitsPerSecond == 2_000_000)
        arbiter.setConfigured(1_000_000)  // the API lowers the target
        arbiter.limit(1_500_000, source: 0)
        arbiter.setConfigured(4_000_000)  // and raises it: the output's limit now holds
        #expect(applied.values.withLock { $0 } == [1_000_000, 1_500_000])
    }
}
