import NIOCore

/// Picture Loss Indication, RFC 4585 §6.3.1: the receiver lost part of a picture and needs a
/// decoder refresh; the sender answers with a key frame (rate-limited by ``KeyFrameRequestLimiter``).
///
///     |V=2|P| FMT=1   |   PT=PSFB=206 |          length=2             |
///     |                  SSRC of packet sender                        |
///     |                  SSRC of media source                         |
///
/// No FCI.
public struct PictureLossIndication: Sendable, Equatable {
    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32

    public init(senderSSRC: UInt32, mediaSSRC: UInt32) {
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
    }

    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        let (header, fci, packet) = try RTCPFeedbackHeader.read(
            from: &buffer, packetType: RTCPPacketType.payloadSpecificFeedback,
            format: RTCPFeedbackFormat.pictureLossIndication
        )
        try packet.requireConsumed(fci)
        self.init(senderSSRC: header.senderSSRC, mediaSSRC: header.mediaSSRC)
    }

    public var encodedSize: Int { RTCPFeedbackHeader.size }

    public func write(to buffer: inout ByteBuffer) {
        RTCPFeedbackHeader(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC).write(
            to: &buffer, packetType: RTCPPacketType.payloadSpecificFeedback,
            format: RTCPFeedbackFormat.pictureLossIndication, packetSize: encodedSize
        )
    }
}
