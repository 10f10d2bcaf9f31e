/// The last N packets sent on one SSRC, looked up by sequence number to answer NACKs (RFC 4585
/// §6.2.1) with retransmissions.
///
/// A ring indexed by `sequenceNumber mod capacity`, with the capacity rounded up to a power of two
/// that divides 2¹⁶, so wrap-around from 65535 to 0 keeps consecutive numbers in consecutive slots
/// and the history never holds more than `capacity` packets. Each slot remembers its sequence
/// number, so an evicted or never-sent number is a miss, not a wrong packet. Payloads are slices,
/// so memory is bounded by the last `capacity` packets' frames.
///
/// A receiver names a lost packet again in every NACK until it arrives (Chromium about once per
/// round trip); behind a narrow link, answering each naming would multiply the retransmissions that
/// fill the link further. ``packetToResend(sequenceNumber:nowNanos:minimumIntervalNanos:)`` answers
/// a packet at most once per interval (libwebrtc's packet history does the same, once per RTT).
public struct RTPSendHistory: Sendable {
    public static let maxCapacity = 1 << 15
    /// About a second of 720p video at 2.5 Mbit/s: enough for NACKs that arrive within an RTT or two.
    public static let defaultCapacity = 1024

    private var slots: [RTPPacket?]
    /// When each slot's packet was last sent again (`.min`: never).
    private var resentNanos: [Int64]
    private let mask: Int

    /// `capacity` is rounded up to a power of two and clamped to 1…32768.
    public init(capacity: Int) {
        let clamped = min(max(capacity, 1), Self.maxCapacity)
        let size = clamped <= 1 ? 1 : 1 << (Int.bitWidth - (clamped - 1).leadingZeroBitCount)
        slots = Array(repeating: nil, count: size)
        resentNanos = Array(repeating: .min, count: size)
        mask = size - 1
    }

    public var capacity: Int { slots.count }

    /// Remembers a sent packet, evicting the one `capacity` sequence numbers older.
    public mutating func insert(_ packet: RTPPacket) {
        slots[Int(packet.header.sequenceNumber) & mask] = packet
        resentNanos[Int(packet.header.sequenceNumber) & mask] = .min
    }

    /// The packet sent with `sequenceNumber`, if still held.
    public func packet(sequenceNumber: UInt16) -> RTPPacket? {
        guard let packet = slots[Int(sequenceNumber) & mask], packet.header.sequenceNumber == sequenceNumber else {
            return nil
        }
        return packet
    }

    /// What a NACK for `sequenceNumber` gets at `nowNanos`: the packet, unless it is no longer held
    /// (``ResendAnswer/unavailable``) or was sent again less than `minimumIntervalNanos` ago
    /// (``ResendAnswer/tooSoon``: that copy may still be on its way).
    public mutating func packetToResend(sequenceNumber: UInt16, nowNanos: Int64, minimumIntervalNanos: Int64) -> ResendAnswer {
        guard let packet = packet(sequenceNumber: sequenceNumber) else { return .unavailable }
        let slot = Int(sequenceNumber) & mask
        if resentNanos[slot] != .min, nowNanos - resentNanos[slot] < minimumIntervalNanos { return .tooSoon }
        resentNanos[slot] = nowNanos
        return .resend(packet)
    }

    public enum ResendAnswer: Sendable, Equatable {
        case resend(RTPPacket)
        case unavailable
        case tooSoon
    }
}
