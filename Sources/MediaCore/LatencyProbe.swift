/// Glass-to-glass latency per second of receiving, as `livepush probe` reports it: each timed frame's
/// receive wall-clock time minus its capture time goes into the current second's window; a frame in
/// a later second closes the window and hands its figures out. Seconds count from the first timed
/// frame (second 1 is its first second); a run's figures accumulate in a second window for the total.
public struct LatencyProbe: Sendable {
    /// One second's figures, numbered from 1.
    public struct Second: Sendable, Equatable {
        public var index: Int
        public var summary: LatencySummary
    }

    /// When the probe started (monotonic nanoseconds): a caller's timeout counts from here.
    public let started: Int64
    private var firstTimed: Int64?
    private var index = 1
    private var current: LatencyWindow
    private var whole: LatencyWindow

    /// `expectedSeconds`: how long the run is likely to be, to reserve the total's storage up front.
    public init(expectedSeconds: Double, started: Int64) {
        self.started = started
        current = LatencyWindow(expectedSamples: 120)
        whole = LatencyWindow(expectedSamples: Int(min(expectedSeconds, 3600) * 120))
    }

    /// Seconds since the first timed frame, or nil before it.
    public func elapsedSeconds(at monotonic: Int64) -> Double? {
        firstTimed.map { Double(monotonic - $0) / 1e9 }
    }

    /// Adds a frame captured at `captureWallClock` and received at `receivedWallClock` (both Unix
    /// nanoseconds; `receivedMonotonic` places it in a second). Returns the second it closed, if any.
    public mutating func add(captureWallClock: Int64, receivedWallClock: Int64, receivedMonotonic: Int64) -> Second? {
        let first = firstTimed ?? receivedMonotonic
        firstTimed = first
        let frameIndex = Int((receivedMonotonic - first) / 1_000_000_000) + 1
        var closed: Second?
        if frameIndex > index {
            closed = finish()
            index = frameIndex
        }
        let latency = receivedWallClock - captureWallClock
        current.add(nanoseconds: latency)
        whole.add(nanoseconds: latency)
        return closed
    }

    /// Closes the current second (at the end of a run): its figures, or nil when it holds no frame.
    public mutating func finish() -> Second? {
        defer { current.reset() }
        return current.summarize().map { Second(index: index, summary: $0) }
    }

    /// The whole run's figures, or nil when no timed frame arrived.
    public mutating func total() -> LatencySummary? { whole.summarize() }
}
