/// Capture-to-socket latency of sent frames: capture timestamp to the moment the frame's last byte was
/// handed to the kernel. Keeps the newest `capacity` samples in a ring, so memory stays fixed on long runs.
public struct SendLatencyRecorder: Sendable, Hashable {
    public let capacity: Int
    private var samples: [Int64] = []
    private var next = 0

    public init(capacity: Int = 8192) {
        self.capacity = max(1, capacity)
    }

    public mutating func record(nanos: Int64) {
        if samples.count < capacity {
            samples.append(nanos)
        } else {
            samples[next] = nanos
            next = (next + 1) % capacity
        }
    }

    public var count: Int { samples.count }

    /// The `fraction` quantile (0...1) in nanoseconds, nil before any sample (nearest-rank).
    public func quantileNanos(_ fraction: Double) -> Int64? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}
