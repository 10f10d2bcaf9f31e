import NIOCore

/// The body of a video tag after its header fields, normalised across legacy AVC and enhanced RTMP.
public enum FLVVideoPacket: Sendable, Hashable {
    /// Decoder configuration: AVCDecoderConfigurationRecord (ISO 14496-15 §5.3.3.1), HEVCDecoderConfigurationRecord
    /// or AV1CodecConfigurationRecord. Legacy AVCPacketType 0, enhanced PacketType SequenceStart.
    case sequenceStart(ByteBuffer)
    /// Coded pictures. For AVC/HEVC the data is NAL units each prefixed by a 4-byte length;
    /// `compositionTimeOffset` is PTS − DTS in milliseconds (SI24).
    case codedFrames(compositionTimeOffset: Int32, data: ByteBuffer)
    /// End of sequence (legacy AVCPacketType 2, enhanced SequenceEnd).
    case sequenceEnd
    /// Enhanced packet types this module does not interpret (Metadata, MPEG2TSSequenceStart): data after the FourCC.
    case unknown(packetType: UInt8, data: ByteBuffer)
    /// Legacy non-AVC codecs and command frames: everything after the first byte.
    case raw(ByteBuffer)
}
