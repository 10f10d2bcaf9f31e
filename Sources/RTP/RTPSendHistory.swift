/// The packets sent on one SSRC in the last second or so (at most `capacity`), looked up by
/// sequence number to answer NACKs (RFC 4585 §6.2.1) with retransmissions.
///
/// A ring indexed by `sequenceNumber mod` its size, with the capacity rounded up to a power of two
/// that divides 2¹⁶, so wrap-around from 65535 to 0 keeps consecutive numbers in consecutive slots
/// and the history never holds more than `capacity` packets. Each slot remembers its sequence
/// number, so an evicted or never-sent number is a miss, not a wrong packet. Payloads are slices
/// that keep their frame's buffer alive (a WHEP output's viewers keep slices of one buffer per
/// frame, packetized once for all of them, each history its own slices): ``forget(sentBefore:)``
/// lets go of packets older than a NACK could still usefully ask for (``keepNanos(roundTripNanos:)``,
/// by time as libwebrtc's packet history does), so a slow stream does not pin `capacity` packets'
/// worth of seconds of video per viewer.
///
/// The slot table starts small and doubles, up to `capacity`, when the packets held in the last
/// second or so need more room: a viewer of a 2.5 Mbit/s stream does not carry a table sized for
/// 10 Mbit/s. It grows while the stream starts (and when the rate rises), never in steady state.
///
/// A receiver names a lost packet again in every NACK until it arrives (Chromium about once per
/// round trip); behind a narrow link, answering each naming would multiply the retransmissions that
/// fill the link further. ``packetToResend(sequenceNumber:nowNanos:minimumIntervalNanos:)`` answers
/// a packet at most once per interval (libwebrtc's packet history does the same, once per RTT).
public struct RTPSendHistory: Sendable {
    public static let maxCapacity = 1 << 15
    /// About a second of video at 10 Mbit/s (1200-byte payloads): the bound when packets come
    /// faster than ``keepNanos(roundTripNanos:)`` lets them go.
    public static let defaultCapacity = 1024
    /// A packet is kept at least this long, however short the round trip (libwebrtc: 1 s).
    public static let minimumKeepNanos: Int64 = 1_000_000_000
    /// …and at least this many round trips (libwebrtc: 3), so a NACK repeated after a lost
    /// retransmission still finds it on a long path.
    public static let roundTripsKept: Int64 = 3

    /// The table starts with this many slots (fewer when `capacity` is smaller).
    static let initialSlots = 64

    private var slots: [RTPPacket?]
    /// When each slot's packet was first sent.
    private var sentNanos: [Int64]
    /// When each slot's packet was last sent again (`.min`: never).
    private var resentNanos: [Int64]
    private var mask: Int
    /// The most packets held: the table grows to this many slots, no further.
    public let capacity: Int
    /// The sequence numbers `oldest ..< oldest + span` are the ones that may still be held: where
    /// ``forget(sentBefore:)`` starts, so each packet is looked at once however often it is called.
    private var oldest: UInt16 = 0
    private var span = 0

    /// `capacity` is rounded up to a power of two and clamped to 1…32768.
    public init(capacity: Int) {
        let clamped = min(max(capacity, 1), Self.maxCapacity)
        self.capacity = clamped <= 1 ? 1 : 1 << (Int.bitWidth - (clamped - 1).leadingZeroBitCount)
        let size = min(self.capacity, Self.initialSlots)
        slots = Array(repeating: nil, count: size)
        sentNanos = Array(repeating: 0, count: size)
        resentNanos = Array(repeating: .min, count: size)
        mask = size - 1
    }

    /// Slots the table has now (a power of two up to ``capacity``).
    public var allocatedSlots: Int { slots.count }

    /// How long a packet is worth keeping on a path with this round trip (nil: not measured yet):
    /// max(``minimumKeepNanos``, ``roundTripsKept`` × RTT).
    public static func keepNanos(roundTripNanos: Int64?) -> Int64 {
        max(minimumKeepNanos, roundTripsKept * (roundTripNanos ?? 0))
    }

    /// Remembers a packet sent at `sentNanos`, evicting the one `capacity` sequence numbers older.
    public mutating func insert(_ packet: RTPPacket, sentNanos: Int64) {
        let sequenceNumber = packet.header.sequenceNumber
        let needed = span == 0 ? 1 : max(span, Int(sequenceNumber &- oldest) + 1)
        if needed > slots.count, slots.count < capacity { grow(toHold: needed) }
        let slot = Int(sequenceNumber) & mask
        slots[slot] = packet
        self.sentNanos[slot] = sentNanos
        resentNanos[slot] = .min
        let ahead = Int(sequenceNumber &- oldest)
        if span == 0 {
            (oldest, span) = (sequenceNumber, 1)
        } else if ahead >= span {
            span = ahead + 1
        }
        if span > slots.count {
            (oldest, span) = (sequenceNumber &- UInt16(slots.count - 1), slots.count)
        }
    }

    /// Doubles the table until `count` consecutive numbers fit (at most ``capacity``), moving the
    /// packets held to their slots in it.
    private mutating func grow(toHold count: Int) {
        var size = slots.count
        while size < count, size < capacity { size *= 2 }
        var grownSlots = [RTPPacket?](repeating: nil, count: size)
        var grownSent = [Int64](repeating: 0, count: size)
        var grownResent = [Int64](repeating: .min, count: size)
        for offset in 0..<span {
            let sequenceNumber = oldest &+ UInt16(offset)
            let slot = Int(sequenceNumber) & mask
            guard let packet = slots[slot], packet.header.sequenceNumber == sequenceNumber else { continue }
            let target = Int(sequenceNumber) & (size - 1)
            (grownSlots[target], grownSent[target], grownResent[target]) = (packet, sentNanos[slot], resentNanos[slot])
        }
        (slots, sentNanos, resentNanos, mask) = (grownSlots, grownSent, grownResent, size - 1)
    }

    /// Lets go of the packets sent before `cutoffNanos`, oldest first (their frames' buffers are
    /// freed once no packet holds them): NACKs for them are answered ``ResendAnswer/unavailable``.
    /// Allocates nothing.
    public mutating func forget(sentBefore cutoffNanos: Int64) {
        while span > 0 {
            let slot = Int(oldest) & mask
            if slots[slot]?.header.sequenceNumber == oldest {
                guard sentNanos[slot] < cutoffNanos else { return }
                slots[slot] = nil
            }
            oldest &+= 1
            span -= 1
        }
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
