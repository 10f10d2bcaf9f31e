/// Latency samples over a window (one second of `livepush probe`, or a whole run) and what they
/// add up to. Samples go into storage reserved up front and ``summarize()`` sorts them in place,
/// so a window that never outgrows its reservation allocates nothing per sample.
public struct LatencyWindow: Sendable {
    private var samples: [Int64] = []

    /// `expectedSamples`: how many the window usually holds (frames per second × seconds).
    public init(expectedSamples: Int) {
        samples.reserveCapacity(max(expectedSamples, 1))
    }

    public var count: Int { samples.count }

    /// One frame's latency, in nanoseconds (negative when the sender's clock is ahead of ours).
    public mutating func add(nanoseconds: Int64) { samples.append(nanoseconds) }

    /// What the window holds, or nil when it is empty. The samples stay (sorted) until ``reset()``.
    public mutating func summarize() -> LatencySummary? {
        guard !samples.isEmpty else { return nil }
        samples.sort()
        let count = samples.count
        let median = count % 2 == 1 ? Double(samples[count / 2]) : (Double(samples[count / 2 - 1]) + Double(samples[count / 2])) / 2
        // Nearest rank: the smallest sample at or above 99 % of them.
        let p99Rank = (count * 99 + 99) / 100
        return LatencySummary(frames: count, minimumNanos: Double(samples[0]), medianNanos: median,
                              p99Nanos: Double(samples[p99Rank - 1]), maximumNanos: Double(samples[count - 1]))
    }

    /// Empties the window, keeping its storage.
    public mutating func reset() { samples.removeAll(keepingCapacity: true) }
}

/// A window's latency figures, in milliseconds.
public struct LatencySummary: Sendable, Equatable {
    public var frames: Int
    public var minimumMilliseconds: Double
    public var medianMilliseconds: Double
    public var p99Milliseconds: Double
    public var maximumMilliseconds: Double

    init(frames: Int, minimumNanos: Double, medianNanos: Double, p99Nanos: Double, maximumNanos: Double) {
        self.frames = frames
        minimumMilliseconds = minimumNanos / 1e6
        medianMilliseconds = medianNanos / 1e6
        p99Milliseconds = p99Nanos / 1e6
        maximumMilliseconds = maximumNanos / 1e6
    }
}
