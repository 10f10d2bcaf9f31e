#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The delay-based rate controller of draft-ietf-rmcat-gcc-02 §5.5: additive increase,
/// multiplicative decrease, driven by the overuse detector's signal.
///
///     signal \ state | hold      | increase  | decrease
///     ---------------+-----------+-----------+----------
///     overusing      | decrease  | decrease  |
///     normal         | increase  |           | hold
///     underusing     |           | hold      | hold
///
/// Increase is multiplicative (``increasePerSecond``) far from the last known link capacity and
/// additive (about one packet per response time) near it, so the rate probes carefully where the
/// queue built last. Decrease sets the rate to ``beta`` times what the receiver acknowledged, at
/// most once per round trip, since the queue needs that long to show the cut.
public struct AIMDRateControl: Sendable {
    enum State: Sendable { case hold, increase, decrease }

    public static let beta = 0.85
    public static let increasePerSecond = 1.08
    /// Within this factor of the link capacity estimate, increases are additive.
    static let nearCapacityFactor = 1.2
    /// Acknowledged rates this far above the link capacity estimate mean the link changed: forget it.
    static let capacityResetFactor = 1.5
    static let packetBits = 1200.0 * 8
    static let minimumResponseNanos: Int64 = 200_000_000
    static let maximumIncreaseStepNanos: Int64 = 1_000_000_000

    private var bounded: BoundedBitrate
    public var bitsPerSecond: Int { bounded.bitsPerSecond }
    /// The acknowledged rate where overuse last happened (smoothed), nil until the first overuse.
    public private(set) var linkCapacityBitsPerSecond: Double?
    private var state = State.increase
    private var lastUpdateNanos: Int64?
    private var lastDecreaseNanos: Int64?

    public init(initialBitsPerSecond: Int, bitrateRange: ClosedRange<Int>) {
        bounded = BoundedBitrate(initialBitsPerSecond: initialBitsPerSecond, range: bitrateRange)
    }

    /// A probe measured that the path carries `bits`: the rate moves up to it (never down).
    public mutating func raise(toBitsPerSecond bits: Int) {
        bounded.raise(to: bits)
    }

    /// Applies the detector's signal at `nowNanos` (sender clock); returns the new rate.
    public mutating func update(usage: BandwidthUsage, acknowledgedBitsPerSecond acknowledged: Int?,
                                roundTripNanos: Int64, nowNanos: Int64) -> Int {
        let elapsed = min(nowNanos - (lastUpdateNanos ?? nowNanos), Self.maximumIncreaseStepNanos)
        lastUpdateNanos = nowNanos
        if let capacity = linkCapacityBitsPerSecond, let acknowledged, Double(acknowledged) > capacity * Self.capacityResetFactor {
            linkCapacityBitsPerSecond = nil
        }
        switch (usage, state) {
        case (.overusing, _): state = .decrease
        case (.normal, .hold): state = .increase
        case (.normal, .decrease): state = .hold
        case (.underusing, _): state = .hold
        case (.normal, .increase): break
        }
        var rate = Double(bitsPerSecond)
        let responseNanos = max(Self.minimumResponseNanos, roundTripNanos + 100_000_000)
        switch state {
        case .hold:
            break
        case .increase:
            if let capacity = linkCapacityBitsPerSecond, rate < capacity * Self.nearCapacityFactor {
                rate += max(1000, Self.packetBits * Double(elapsed) / Double(responseNanos))
            } else {
                rate *= pow(Self.increasePerSecond, Double(elapsed) / 1e9)
            }
        case .decrease:
            if let last = lastDecreaseNanos, nowNanos - last < responseNanos { break }
            lastDecreaseNanos = nowNanos
            let basis = Double(acknowledged ?? bitsPerSecond)
            rate = min(rate, Self.beta * basis)
            linkCapacityBitsPerSecond = linkCapacityBitsPerSecond.map { 0.5 * $0 + 0.5 * basis } ?? basis
            state = .hold
        }
        return bounded.set(rate)
    }
}
