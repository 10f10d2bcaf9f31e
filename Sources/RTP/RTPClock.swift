/// An RTP media clock (RFC 3550 §5.1 "timestamp"): converts nanoseconds to ticks and back.
///
/// Conversions are computed from the absolute value every time, never accumulated, so there is no
/// drift; they use 128-bit intermediates, so `ns × 90 000` cannot overflow even for monotonic clocks
/// that have been up for centuries. Both directions round toward negative infinity.
public struct RTPClock: Sendable, Equatable {
    public static let nanosPerSecond: Int64 = 1_000_000_000
    /// RFC 6184 §8.2.1: H.264 over RTP always uses 90 kHz.
    public static let video90kHz = RTPClock(uncheckedTicksPerSecond: 90_000)
    /// RFC 7587 §4.1: Opus over RTP always uses 48 kHz, whatever the coded bandwidth.
    public static let opus48kHz = RTPClock(uncheckedTicksPerSecond: 48_000)

    public let ticksPerSecond: Int64

    /// Clock rates from 1 Hz to 1 GHz (faster than nanoseconds makes no sense).
    public init(ticksPerSecond: Int64) throws(RTPError) {
        guard (1...Self.nanosPerSecond).contains(ticksPerSecond) else {
            throw .valueOutOfRange(field: "clock rate", value: Int(ticksPerSecond))
        }
        self.init(uncheckedTicksPerSecond: ticksPerSecond)
    }

    private init(uncheckedTicksPerSecond: Int64) {
        ticksPerSecond = uncheckedTicksPerSecond
    }

    /// `floor(nanos × rate / 10⁹)`; always representable because the rate is at most 10⁹.
    public func ticks(fromNanos nanos: Int64) -> Int64 {
        Self.floorDivide(nanos.multipliedFullWidth(by: ticksPerSecond), by: Self.nanosPerSecond)
    }

    /// `floor(ticks × 10⁹ / rate)`, saturating at `Int64.min`/`max` (beyond ±292 years).
    public func nanos(fromTicks ticks: Int64) -> Int64 {
        let maxTicks = UInt64(Int64.max / Self.nanosPerSecond) * UInt64(ticksPerSecond)
        guard ticks.magnitude <= maxTicks else { return ticks < 0 ? .min : .max }
        return Self.floorDivide(ticks.multipliedFullWidth(by: Self.nanosPerSecond), by: ticksPerSecond)
    }

    /// The 32-bit wire timestamp for `nanos` on a stream whose timestamps start at `offset`
    /// (RFC 3550 §5.1: random initial value); wraps modulo 2³².
    public func timestamp(fromNanos nanos: Int64, offset: UInt32) -> UInt32 {
        offset &+ UInt32(truncatingIfNeeded: ticks(fromNanos: nanos))
    }

    /// Callers guarantee the quotient fits in 64 bits.
    private static func floorDivide(_ dividend: (high: Int64, low: UInt64), by divisor: Int64) -> Int64 {
        let (quotient, remainder) = divisor.dividingFullWidth(dividend)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
