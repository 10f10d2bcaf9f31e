import MediaCore

/// Turns a growing counter (frames, bytes, CPU seconds) into a per-second rate, refreshed at most
/// once per `interval` so two reads a few milliseconds apart do not see noise.
///
/// The meter starts from a known baseline (the counter's value when it began counting, usually 0
/// when its camera or output started), so the very first read already gives the average since then:
/// a script that asks `/api/status` once, an hour into a run, sees the real rate, not 0.
struct RateMeter: Sendable {
    var interval: Double
    private var lastNanos: Int64
    private var lastValue: Double
    private(set) var rate: Double = 0

    init(interval: Double = 1, baseline: Double = 0, since startNanos: Int64 = MonotonicClock.nowNanos()) {
        self.interval = interval
        lastNanos = startNanos
        lastValue = baseline
    }

    mutating func update(_ value: Double, now: Int64 = MonotonicClock.nowNanos()) -> Double {
        let elapsed = Double(now - lastNanos) / 1e9
        if elapsed >= interval {
            rate = max(0, value - lastValue) / elapsed
            lastNanos = now
            lastValue = value
        }
        return rate
    }
}
