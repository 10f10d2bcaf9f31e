/// Every failure of the RTP module, one enum so callers match on one type and the fuzz tests can
/// assert that malformed input never escapes as anything else.
///
/// Decoders throw these for malformed input; well-formed but unknown input decodes to a raw case
/// instead (``RTCPPacket/unknown(_:)``). Builders throw them for values the wire format cannot carry.
public enum RTPError: Error, Equatable, Sendable {
    /// The structure needs `needed` bytes but only `available` are left.
    case truncated(needed: Int, available: Int)
    /// The 2-bit version field is not 2 (RFC 3550 §5.1, §6.4.1).
    case unsupportedVersion(UInt8)
    /// The padding count in the last octet is zero or larger than the bytes it claims to pad.
    case invalidPadding(count: Int, available: Int)
    /// A header extension or RTCP packet declares a length its form cannot have.
    case invalidLength(field: String, length: Int)
    /// A value does not fit its wire field (a 7-bit payload type of 200, a 16th CSRC, ...).
    case valueOutOfRange(field: String, value: Int)
    /// Decoding a specific RTCP type from a packet of another type.
    case unexpectedPacketType(expected: UInt8, actual: UInt8)
    /// Decoding a specific feedback message from a packet with another FMT.
    case unexpectedFeedbackFormat(expected: UInt8, actual: UInt8)
    /// A compound RTCP packet whose first packet is not SR or RR (RFC 3550 §6.1) where reduced-size
    /// RTCP (RFC 5506) is not allowed.
    case compoundMustStartWithReport(packetType: UInt8)
    /// Only the last packet of a compound RTCP packet may carry padding (RFC 3550 §6.4.1).
    case paddingBeforeLastPacket
    /// An RTP payload of zero bytes where the payload format requires at least a header.
    case emptyPayload
    /// Annex B input that does not start with a start code.
    case missingStartCode
    /// A NAL unit type the H.264 packetization mode 1 receiver does not handle (STAP-B, MTAP, FU-B).
    case unsupportedNALUnitType(UInt8)
    /// A single payload larger than the configured maximum (an Opus packet that would fragment).
    case payloadTooLarge(size: Int, maximum: Int)
}
