import MediaCore

/// Turns a growing counter (frames, bytes) into a per-second rate, refreshed at most once per
/// `interval` so two reads a few milliseconds apart do not see noise.
struct RateMeter: Sendable {
    var interval: Double = 1
    private var lastNanos: Int64?
    private var lastValue: Double = 0
    private(set) var rate: Double = 0

    init(interval: Double = 1) { self.interval = interval }

    mutating func update(_ value: Double, now: Int64 = MonotonicClock.nowNanos()) -> Double {
        guard let last = lastNanos else {
            lastNanos = now
            lastValue = value
            return rate
        }
        let elapsed = Double(now - last) / 1e9
        if elapsed >= interval {
            rate = max(0, value - lastValue) / elapsed
            lastNanos = now
            lastValue = value
        }
        return rate
    }
}
