/// Turns the times frames were read from a pipe into capture timestamps that advance by the
/// nominal frame interval, so scheduling jitter in the reads does not reach the encoder's
/// timestamps (an encoder and a player see a steady rate).
///
/// Each timestamp is the previous one plus the interval, pulled toward the read time by an
/// eighth of the difference, so the smoothed clock follows a camera whose real rate differs
/// slightly from the nominal one. A read more than two intervals off (dropped frames, a stall, a
/// restart) re-anchors on the read time. Timestamps always increase.
public struct FrameTimeSmoother: Sendable {
    public let intervalNanos: Int64
    private var last: Int64?

    public init(framesPerSecond: Double) {
        intervalNanos = Int64((1e9 / framesPerSecond).rounded())
    }

    /// The capture timestamp for a frame read at `readNanos` (CLOCK_MONOTONIC).
    public mutating func timestamp(readAtNanos readNanos: Int64) -> Int64 {
        guard let last else {
            self.last = readNanos
            return readNanos
        }
        let predicted = last + intervalNanos
        let error = readNanos - predicted
        var next = error.magnitude > UInt64(2 * intervalNanos) ? readNanos : predicted + error / 8
        if next <= last { next = last + 1 }
        self.last = next
        return next
    }

    /// Forgets the history (after the producer restarts).
    public mutating func reset() { last = nil }
}
