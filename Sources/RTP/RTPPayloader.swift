import NIOCore

/// A payload format: turns one media frame into RTP payloads and knows nothing of RTP headers.
/// ``RTPPacketizer`` adds SSRC, sequence numbers, timestamps and the marker bit around it, so a
/// new codec only needs a payloader (the split of pion/rtp's `Payloader` and `Packetizer`).
public protocol RTPPayloader: Sendable {
    /// What one call consumes: the NAL units of an access unit, one Opus packet, ...
    associatedtype Frame

    /// The RTP clock the payload format mandates (RFC 6184 §8.2.1: 90 kHz; RFC 7587 §4.1: 48 kHz).
    static var clock: RTPClock { get }

    /// The payloads of one frame in send order; the last one gets the marker bit.
    mutating func payloads(for frame: Frame) throws(RTPError) -> [ByteBuffer]
}
