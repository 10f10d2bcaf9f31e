import NIOCore

/// The payload of an RTMP video message: an FLV video tag body.
///
/// Legacy AVC (FLV spec v10.1 §E.4.3.1):
/// ```
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |frame  | codec |AVCPacketType  |  CompositionTime (SI24, ms)   |
/// | type  | id=7  |0=seq 1=NALU   |                               |
/// |(4 bit)|(4 bit)|  2=end        |                               |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// Enhanced RTMP v2 ("Enhancing FLV", ExVideoTagHeader):
/// ```
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |1|frame|packet |       FourCC (e.g. 'hvc1')                    | [SI24 CTS]    |
/// | |type |type   |                                               | CodedFrames,  |
/// | |3 bit|4 bit  |                                               | avc1/hvc1 only|
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
/// Packet types: 0 SequenceStart, 1 CodedFrames, 2 SequenceEnd, 3 CodedFramesX (CTS implied 0).
/// The encoder writes CodedFramesX whenever the offset is 0; the decoder returns both as `.codedFrames`.
///
/// Enhanced RTMP v2 multitrack, `AvMultitrackType.OneTrack` (one track per message, the only kind this
/// module models): packet type 6 (Multitrack) in the first byte, then the real packet type and the track id.
/// ```
/// +-+-----+-------+-------+-------+---------------+-------+--------------+
/// |1|frame|   6   |mt type|packet |  FourCC       |trackId| [SI24 CTS]   |
/// | |type |       | 0=One |type   |               | (UI8) |              |
/// +-+-----+-------+-------+-------+---------------+-------+--------------+
/// ```
public struct FLVVideoTag: Sendable, Hashable {
    static let frameTypeShift: UInt8 = 4
    static let codecIDMask: UInt8 = 0x0F
    static let exHeaderBit: UInt8 = 0x80
    static let exFrameTypeMask: UInt8 = 0x07
    static let exPacketTypeMask: UInt8 = 0x0F

    /// AVCPacketType (legacy).
    enum AVCPacketType {
        static let sequenceHeader: UInt8 = 0
        static let nalu: UInt8 = 1
        static let endOfSequence: UInt8 = 2
    }

    /// Enhanced VideoPacketType.
    enum ExPacketType {
        static let sequenceStart: UInt8 = 0
        static let codedFrames: UInt8 = 1
        static let sequenceEnd: UInt8 = 2
        static let codedFramesX: UInt8 = 3
        static let mpeg2TSSequenceStart: UInt8 = 5
        static let multitrack: UInt8 = 6
    }

    /// AvMultitrackType, the high nibble of the byte after a Multitrack packet type.
    enum MultitrackType {
        static let oneTrack: UInt8 = 0
        static let shift: UInt8 = 4
    }

    public var frameType: FLVVideoFrameType
    public var codec: FLVVideoCodec
    public var packet: FLVVideoPacket
    /// The multitrack track id (enhanced RTMP v2, 0 = the default, highest-quality track); `nil` writes an
    /// ordinary single-track tag. Only FourCC codecs carry it: legacy tags have no place for it.
    public var trackID: UInt8?

    public init(frameType: FLVVideoFrameType, codec: FLVVideoCodec, packet: FLVVideoPacket, trackID: UInt8? = nil) {
        self.frameType = frameType
        self.codec = codec
        self.packet = packet
        self.trackID = trackID
    }

    /// Whether an enhanced CodedFrames packet for this FourCC carries a composition time (avc1, hvc1 do).
    static func hasCompositionTime(_ fourCC: FourCC) -> Bool {
        fourCC == .avc1 || fourCC == .hvc1
    }

    public init(from buffer: inout ByteBuffer) throws(RTMPError) {
        var copy = buffer
        let first: UInt8 = try copy.readRequiredInteger("video tag header")
        if first & Self.exHeaderBit != 0 {
            try self.init(enhancedHeader: first, from: &copy)
        } else {
            try self.init(legacyHeader: first, from: &copy)
        }
        buffer = copy
    }

    private init(legacyHeader first: UInt8, from buffer: inout ByteBuffer) throws(RTMPError) {
        frameType = try Self.frameType(first >> Self.frameTypeShift)
        let codecID = first & Self.codecIDMask
        guard codecID == FLVVideoCodec.avcCodecID, frameType != .command else {
            codec = codecID == FLVVideoCodec.avcCodecID ? .avc : .legacy(codecID: codecID)
            trackID = nil
            packet = .raw(buffer.readSlice(length: buffer.readableBytes) ?? ByteBuffer())
            return
        }
        codec = .avc
        trackID = nil
        let packetType: UInt8 = try buffer.readRequiredInteger("AVCPacketType")
        let compositionTime = try buffer.readRequired24Int("AVC CompositionTime")
        let data = buffer.readSlice(length: buffer.readableBytes) ?? ByteBuffer()
        switch packetType {
        case AVCPacketType.sequenceHeader: packet = .sequenceStart(data)
        case AVCPacketType.nalu: packet = .codedFrames(compositionTimeOffset: compositionTime, data: data)
        case AVCPacketType.endOfSequence: packet = .sequenceEnd
        default: throw .invalidFLVTag(reason: "AVCPacketType \(packetType)")
        }
    }

    private init(enhancedHeader first: UInt8, from buffer: inout ByteBuffer) throws(RTMPError) {
        frameType = try Self.frameType((first >> Self.frameTypeShift) & Self.exFrameTypeMask)
        guard frameType != .command else { throw .unsupportedFLVTag(reason: "enhanced video command frame") }
        var packetType = first & Self.exPacketTypeMask
        let isMultitrack = packetType == ExPacketType.multitrack
        if isMultitrack {
            let multitrack: UInt8 = try buffer.readRequiredInteger("video multitrack type")
            let multitrackType = multitrack >> MultitrackType.shift
            guard multitrackType == MultitrackType.oneTrack else {
                throw .unsupportedFLVTag(reason: "video multitrack type \(multitrackType) (only OneTrack is modelled)")
            }
            packetType = multitrack & Self.exPacketTypeMask
        }
        guard packetType <= ExPacketType.mpeg2TSSequenceStart else {
            throw .unsupportedFLVTag(reason: "enhanced video packet type \(packetType) (multitrack/ModEx)")
        }
        let fourCC = FourCC(rawValue: try buffer.readRequiredInteger("video FourCC"))
        codec = .fourCC(fourCC)
        trackID = isMultitrack ? try buffer.readRequiredInteger("video track id") : nil
        var compositionTime: Int32 = 0
        if packetType == ExPacketType.codedFrames && Self.hasCompositionTime(fourCC) {
            compositionTime = try buffer.readRequired24Int("video CompositionTime")
        }
        let data = buffer.readSlice(length: buffer.readableBytes) ?? ByteBuffer()
        switch packetType {
        case ExPacketType.sequenceStart: packet = .sequenceStart(data)
        case ExPacketType.codedFrames, ExPacketType.codedFramesX:
            packet = .codedFrames(compositionTimeOffset: compositionTime, data: data)
        case ExPacketType.sequenceEnd: packet = .sequenceEnd
        default: packet = .unknown(packetType: packetType, data: data)
        }
    }

    private static func frameType(_ value: UInt8) throws(RTMPError) -> FLVVideoFrameType {
        guard let frameType = FLVVideoFrameType(rawValue: value) else {
            throw .invalidFLVTag(reason: "video frame type \(value)")
        }
        return frameType
    }
}
