/// A 64-bit NTP timestamp (RFC 5905 §6, used by RFC 3550 §4 and §6.4.1): seconds since 1900 and a
/// 32-bit binary fraction. Sender Reports carry it; its middle 32 bits are the LSR that comes back in
/// reception reports for the RTT computation.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                            Seconds                            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                            Fraction                           |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
public struct NTPTimestamp: Sendable, Equatable, Hashable {
    /// Seconds from 1900-01-01 to 1970-01-01.
    public static let unixEpochOffsetSeconds: Int64 = 2_208_988_800
    static let nanosPerSecond: UInt64 = 1_000_000_000
    static let fractionShift: UInt64 = 32
    /// NTP era 0 ends in February 2036; seconds values with the top bit clear are read as era 1
    /// (2036–2104), as RFC 4330 §3 suggests.
    static let eraPivot: UInt32 = 0x8000_0000

    public var seconds: UInt32
    public var fraction: UInt32

    public init(seconds: UInt32, fraction: UInt32) {
        self.seconds = seconds
        self.fraction = fraction
    }

    public init(rawValue: UInt64) {
        self.init(seconds: UInt32(truncatingIfNeeded: rawValue >> 32), fraction: UInt32(truncatingIfNeeded: rawValue))
    }

    /// From wall-clock nanoseconds since the Unix epoch (CLOCK_REALTIME); the fraction is floored.
    public init(unixNanos: Int64) {
        let nanosPerSecond = Int64(Self.nanosPerSecond)
        let (quotient, remainder) = unixNanos.quotientAndRemainder(dividingBy: nanosPerSecond)
        let wholeSeconds = remainder < 0 ? quotient - 1 : quotient
        let nanos = UInt64(remainder < 0 ? remainder + nanosPerSecond : remainder)
        seconds = UInt32(truncatingIfNeeded: wholeSeconds + Self.unixEpochOffsetSeconds)
        fraction = UInt32(truncatingIfNeeded: (nanos << Self.fractionShift) / Self.nanosPerSecond)
    }

    /// Back to Unix nanoseconds, rounded to the nearest nanosecond (so a round trip is exact).
    public var unixNanos: Int64 {
        var ntpSeconds = Int64(seconds)
        if seconds < Self.eraPivot { ntpSeconds += Int64(1) << 32 }
        let half: UInt64 = 1 << (Self.fractionShift - 1)
        let nanos = (UInt64(fraction) * Self.nanosPerSecond + half) >> Self.fractionShift
        return (ntpSeconds - Self.unixEpochOffsetSeconds) * Int64(Self.nanosPerSecond) + Int64(nanos)
    }

    public var rawValue: UInt64 { UInt64(seconds) << 32 | UInt64(fraction) }

    /// The middle 32 bits (16.16 fixed point seconds), the LSR/DLSR unit of RFC 3550 §6.4.1.
    public var middle32: UInt32 { UInt32(truncatingIfNeeded: rawValue >> 16) }
}
