import MediaCore
import NIOCore

/// A reception report block, RFC 3550 §6.4.1, carried by Sender and Receiver Reports: what one
/// receiver saw of one source.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |                 SSRC_1 (SSRC of first source)                 |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     | fraction lost |       cumulative number of packets lost       |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |           extended highest sequence number received           |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                      interarrival jitter                      |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         last SR (LSR)                         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                   delay since last SR (DLSR)                  |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
public struct ReceptionReport: Sendable, Equatable {
    public static let size = 24
    /// Cumulative lost is a signed 24-bit field; RFC 3550 Appendix A.3 clamps to this range.
    public static let cumulativeLostRange: ClosedRange<Int32> = -0x80_0000...0x7F_FFFF
    /// LSR and DLSR count 1/65536 seconds.
    static let ticksPerSecond: Int64 = 65_536

    public var ssrc: UInt32
    /// Fraction of packets lost since the last report, in 1/256.
    public var fractionLost: UInt8
    /// Packets expected minus packets received (negative with duplicates); clamped to 24 bits.
    public var cumulativeLost: Int32 {
        didSet { cumulativeLost = min(max(cumulativeLost, Self.cumulativeLostRange.lowerBound), Self.cumulativeLostRange.upperBound) }
    }
    public var extendedHighestSequenceNumber: UInt32
    /// Interarrival jitter in RTP timestamp units.
    public var jitter: UInt32
    /// Middle 32 bits of the NTP timestamp of the last SR received from the source, 0 if none.
    public var lastSenderReport: UInt32
    /// Delay between receiving that SR and sending this report, in 1/65536 s.
    public var delaySinceLastSenderReport: UInt32

    public init(
        ssrc: UInt32, fractionLost: UInt8, cumulativeLost: Int32, extendedHighestSequenceNumber: UInt32,
        jitter: UInt32, lastSenderReport: UInt32, delaySinceLastSenderReport: UInt32
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = min(max(cumulativeLost, Self.cumulativeLostRange.lowerBound), Self.cumulativeLostRange.upperBound)
        self.extendedHighestSequenceNumber = extendedHighestSequenceNumber
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        try buffer.requireReadable(Self.size)
        self.init(
            ssrc: try buffer.readRequiredInteger(),
            fractionLost: try buffer.readRequiredInteger(),
            cumulativeLost: try buffer.readInt24(),
            extendedHighestSequenceNumber: try buffer.readRequiredInteger(),
            jitter: try buffer.readRequiredInteger(),
            lastSenderReport: try buffer.readRequiredInteger(),
            delaySinceLastSenderReport: try buffer.readRequiredInteger()
        )
    }

    public var encodedSize: Int { Self.size }

    public func write(to buffer: inout ByteBuffer) {
        buffer.writeInteger(ssrc)
        buffer.writeInteger(fractionLost)
        buffer.writeInt24(cumulativeLost)
        buffer.writeInteger(extendedHighestSequenceNumber)
        buffer.writeInteger(jitter)
        buffer.writeInteger(lastSenderReport)
        buffer.writeInteger(delaySinceLastSenderReport)
    }

    /// Round-trip time, RFC 3550 §6.4.1 (Figure 2): `A − LSR − DLSR`, where A is when this report
    /// arrived. Nil when the receiver has not had an SR yet (LSR = 0) or the result is negative
    /// (clock steps, a report older than its SR).
    public func roundTripTimeNanos(arrival: NTPTimestamp) -> Int64? {
        guard lastSenderReport != 0 else { return nil }
        let roundTrip = Int32(bitPattern: arrival.middle32 &- lastSenderReport &- delaySinceLastSenderReport)
        guard roundTrip >= 0 else { return nil }
        return Int64(roundTrip) * RTPClock.nanosPerSecond / Self.ticksPerSecond
    }
}
