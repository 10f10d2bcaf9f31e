#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The loss-based controller of draft-ietf-rmcat-gcc-02 §6: from the fraction of packets the
/// receiver reports lost, over at least ``minimumPackets``:
///
///     loss > 10 %:  A = A × (1 − 0.5 × loss)   (at most once per ``decreaseIntervalNanos``)
///     loss < 2 %:   A = A × 1.08 per second
///     otherwise:    A unchanged
///
/// A decrease starts from the lower of its own estimate and the delay-based one (the rate actually
/// in use), so heavy loss always lowers what the sender is allowed; but never below what the
/// receiver acknowledged times (1 − 0.5 × loss): a sender that cannot follow the estimate at once
/// (a fixed rendition until its switch) keeps losing, and repeated cuts from the estimate alone
/// would fall far below what the link still delivers.
public struct LossBasedEstimator: Sendable {
    public static let highLoss = 0.10
    public static let lowLoss = 0.02
    public static let minimumPackets = 20
    public static let decreaseIntervalNanos: Int64 = 300_000_000

    private var bounded: BoundedBitrate
    public var bitsPerSecond: Int { bounded.bitsPerSecond }
    /// The last loss fraction judged (0…1).
    public private(set) var lossFraction = 0.0
    private var received = 0
    private var lost = 0
    private var lastIncreaseNanos: Int64?
    private var lastDecreaseNanos: Int64?

    public init(initialBitsPerSecond: Int, bitrateRange: ClosedRange<Int>) {
        bounded = BoundedBitrate(initialBitsPerSecond: initialBitsPerSecond, range: bitrateRange)
    }

    /// A probe measured that the path carries `bits`: the estimate moves up to it (never down).
    public mutating func raise(toBitsPerSecond bits: Int) {
        bounded.raise(to: bits)
    }

    /// Counts one feedback's packets; judges once enough have been counted. Returns the estimate.
    public mutating func update(received newlyReceived: Int, lost newlyLost: Int, delayBasedBitsPerSecond: Int,
                                acknowledgedBitsPerSecond: Int? = nil, nowNanos: Int64) -> Int {
        received += newlyReceived
        lost += newlyLost
        guard received + lost >= Self.minimumPackets else { return bitsPerSecond }
        lossFraction = Double(lost) / Double(received + lost)
        received = 0
        lost = 0
        var rate = Double(bitsPerSecond)
        if lossFraction > Self.highLoss {
            if lastDecreaseNanos.map({ nowNanos - $0 >= Self.decreaseIntervalNanos }) ?? true {
                lastDecreaseNanos = nowNanos
                let kept = 1 - 0.5 * lossFraction
                rate = max(Double(min(bitsPerSecond, delayBasedBitsPerSecond)) * kept, Double(acknowledgedBitsPerSecond ?? 0) * kept)
            }
            lastIncreaseNanos = nowNanos
        } else if lossFraction < Self.lowLoss {
            let elapsed = min(nowNanos - (lastIncreaseNanos ?? nowNanos), 1_000_000_000)
            rate *= pow(AIMDRateControl.increasePerSecond, Double(elapsed) / 1e9)
            lastIncreaseNanos = nowNanos
        } else {
            lastIncreaseNanos = nowNanos
        }
        return bounded.set(rate)
    }
}
