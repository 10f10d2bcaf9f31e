import NIOCore

/// Retransmission payload format, RFC 4588 §4: a lost packet re-sent on a separate SSRC and payload
/// type with its own sequence numbers, the original sequence number (OSN) prefixed to the payload.
/// A separate stream keeps the receiver's loss statistics and SRTP replay protection for the
/// original stream intact.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         RTP Header                            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |            OSN                |                               |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               |
///     |                  Original RTP Packet Payload                  |
///
/// Timestamp, marker, CSRCs and header extension stay those of the original (§4).
public struct RTXPacketizer: Sendable {
    static let originalSequenceNumberSize = 2

    public let ssrc: UInt32
    public let payloadType: UInt8
    public private(set) var sequencer: RTPSequencer
    public let allocator: ByteBufferAllocator

    public init(ssrc: UInt32, payloadType: UInt8, sequencer: RTPSequencer, allocator: ByteBufferAllocator = .init()) throws(RTPError) {
        guard payloadType <= RTPHeader.maxPayloadType else {
            throw .valueOutOfRange(field: "payload type", value: Int(payloadType))
        }
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.sequencer = sequencer
        self.allocator = allocator
    }

    /// The RTX packet for `original` (padding is not carried over).
    public mutating func wrap(_ original: RTPPacket) -> RTPPacket {
        var payload = allocator.buffer(capacity: Self.originalSequenceNumberSize + original.payload.readableBytes)
        payload.writeInteger(original.header.sequenceNumber)
        payload.writeImmutableBuffer(original.payload)
        let header = RTPHeader(
            unchecked: original.header.marker, payloadType: payloadType, sequenceNumber: sequencer.next(),
            timestamp: original.header.timestamp, ssrc: ssrc, csrcs: original.header.csrcs,
            headerExtension: original.header.headerExtension
        )
        return RTPPacket(header: header, payload: payload)
    }

    /// The original packet inside an RTX packet, given the original stream's SSRC and payload type
    /// (from the SDP's `a=ssrc-group:FID` and `apt=`).
    public static func unwrap(_ rtx: RTPPacket, originalSSRC: UInt32, originalPayloadType: UInt8) throws(RTPError) -> RTPPacket {
        guard originalPayloadType <= RTPHeader.maxPayloadType else {
            throw .valueOutOfRange(field: "payload type", value: Int(originalPayloadType))
        }
        var payload = rtx.payload
        let originalSequenceNumber: UInt16 = try payload.readRequiredInteger()
        let header = RTPHeader(
            unchecked: rtx.header.marker, payloadType: originalPayloadType, sequenceNumber: originalSequenceNumber,
            timestamp: rtx.header.timestamp, ssrc: originalSSRC, csrcs: rtx.header.csrcs,
            headerExtension: rtx.header.headerExtension
        )
        return RTPPacket(header: header, payload: payload)
    }
}
