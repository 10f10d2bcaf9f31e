/// The rate at which the receiver got our bytes, from feedback arrival times: what the path
/// delivered lately. The delay-based controller decreases to a fraction of it on overuse (the queue
/// drains only below what the path delivers), and its history marks the link capacity around which
/// increases turn careful.
///
/// Bytes are summed per window of arrival time (``windowNanos``, a shorter first one so an estimate
/// exists early), and each window's rate is smoothed into ``bitsPerSecond``.
public struct AcknowledgedBitrateEstimator: Sendable {
    public static let initialWindowNanos: Int64 = 500_000_000
    public static let windowNanos: Int64 = 300_000_000
    /// Weight of a new window's rate.
    static let smoothing = 0.4

    public private(set) var bitsPerSecond: Int?
    private var windowStartNanos: Int64?
    private var windowBytes = 0

    public init() {}

    /// One received packet (in arrival-time order as the feedback reports it).
    public mutating func add(sizeBytes: Int, arrivalTimeNanos: Int64) {
        guard let start = windowStartNanos, arrivalTimeNanos >= start else {
            windowStartNanos = arrivalTimeNanos
            windowBytes = sizeBytes
            return
        }
        let span = arrivalTimeNanos - start
        let window = bitsPerSecond == nil ? Self.initialWindowNanos : Self.windowNanos
        if span >= window {
            let rate = Double(windowBytes) * 8 * 1e9 / Double(span)
            bitsPerSecond = Int(bitsPerSecond.map { (1 - Self.smoothing) * Double($0) + Self.smoothing * rate } ?? rate)
            windowStartNanos = arrivalTimeNanos
            windowBytes = sizeBytes
        } else {
            windowBytes += sizeBytes
        }
    }
}
