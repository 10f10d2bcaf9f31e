/// A bit rate that stays inside its range whatever is asked of it: the state the delay-based rate
/// control (``AIMDRateControl``) and the loss-based estimator (``LossBasedEstimator``) share, so both
/// clamp, and take a probe's measurement, the same way.
public struct BoundedBitrate: Sendable, Equatable {
    public let range: ClosedRange<Int>
    public private(set) var bitsPerSecond: Int

    public init(initialBitsPerSecond: Int, range: ClosedRange<Int>) {
        self.range = range
        bitsPerSecond = min(max(initialBitsPerSecond, range.lowerBound), range.upperBound)
    }

    /// Moves to `rate`, clamped to the range; returns the rate now held.
    @discardableResult
    public mutating func set(_ rate: Double) -> Int {
        bitsPerSecond = min(max(Int(rate), range.lowerBound), range.upperBound)
        return bitsPerSecond
    }

    /// A probe measured that the path carries `bits`: moves up to it (never down), within the range.
    public mutating func raise(to bits: Int) {
        bitsPerSecond = min(max(bitsPerSecond, bits), range.upperBound)
    }
}
