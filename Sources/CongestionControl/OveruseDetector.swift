/// What the delay trend says about the path (draft-ietf-rmcat-gcc-02 §5.4).
public enum BandwidthUsage: Sendable, Equatable {
    /// The queue is steady: the rate may grow.
    case normal
    /// The queue grows: we send more than the path carries.
    case overusing
    /// The queue drains: hold the rate while it empties.
    case underusing
}

/// Compares the modified trend with a threshold that adapts to it (draft-ietf-rmcat-gcc-02 §5.4,
/// §5.5): the threshold follows the trend up slowly (k_u) and down fast (k_d), so a competing TCP
/// flow's standing queue does not starve us, while a real rise above it is still overuse. Overuse
/// is declared only when the trend stayed above the threshold for ``overuseTimeNanos`` over more
/// than one sample and is not falling.
public struct OveruseDetector: Sendable {
    public static let initialThresholdMillis = 12.5
    public static let thresholdRangeMillis = 6.0...600.0
    static let upGain = 0.0087
    static let downGain = 0.039
    /// A trend this far past the threshold is a spike: the threshold does not chase it.
    static let maximumAdaptMillis = 15.0
    public static let overuseTimeNanos: Int64 = 10_000_000

    public private(set) var thresholdMillis = initialThresholdMillis
    public private(set) var state = BandwidthUsage.normal
    private var lastUpdateNanos: Int64?
    private var overusingNanos: Int64 = -1
    private var overuseCount = 0
    private var previousTrend = 0.0

    public init() {}

    /// One modified trend (from ``TrendlineEstimator``) at `nowNanos` with the group's send delta.
    public mutating func detect(modifiedTrend trend: Double, sendDeltaNanos: Int64, nowNanos: Int64) -> BandwidthUsage {
        if trend > thresholdMillis {
            overusingNanos = overusingNanos < 0 ? sendDeltaNanos / 2 : overusingNanos + sendDeltaNanos
            overuseCount += 1
            if overusingNanos > Self.overuseTimeNanos, overuseCount > 1, trend >= previousTrend {
                overusingNanos = 0
                overuseCount = 0
                state = .overusing
            }
        } else if trend < -thresholdMillis {
            overusingNanos = -1
            overuseCount = 0
            state = .underusing
        } else {
            overusingNanos = -1
            overuseCount = 0
            state = .normal
        }
        previousTrend = trend
        adaptThreshold(trend: trend, nowNanos: nowNanos)
        return state
    }

    private mutating func adaptThreshold(trend: Double, nowNanos: Int64) {
        let last = lastUpdateNanos ?? nowNanos
        lastUpdateNanos = nowNanos
        let magnitude = abs(trend)
        guard magnitude <= thresholdMillis + Self.maximumAdaptMillis else { return }
        let gain = magnitude < thresholdMillis ? Self.downGain : Self.upGain
        let elapsedMillis = min(Double(nowNanos - last) / 1e6, 100)
        thresholdMillis += gain * (magnitude - thresholdMillis) * elapsedMillis
        thresholdMillis = min(max(thresholdMillis, Self.thresholdRangeMillis.lowerBound), Self.thresholdRangeMillis.upperBound)
    }
}
