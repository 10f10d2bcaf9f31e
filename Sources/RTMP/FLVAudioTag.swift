import NIOCore

/// The payload of an RTMP audio message: an FLV audio tag body (FLV spec v10.1 §E.4.2.1).
/// ```
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |sound  |rate |s|t| AACPacketType | data ...
/// |format |     |i|y| 0=AudioSpecific                (AAC only)
/// |10=AAC |3=44k|z|p|   Config 1=raw|
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///  size: 0=8-bit 1=16-bit; type: 0=mono 1=stereo
/// ```
/// For AAC the rate/size/type bits are informational: the decoder reads the AudioSpecificConfig.
/// The spec says AAC always uses rate 3 (44 kHz), so a 48 kHz stream is flagged 44 kHz too, as FFmpeg and OBS do.
public struct FLVAudioTag: Sendable, Hashable {
    static let soundFormatShift: UInt8 = 4
    static let soundRateShift: UInt8 = 2
    static let soundRateMask: UInt8 = 0x03
    static let sixteenBitFlag: UInt8 = 0x02
    static let stereoFlag: UInt8 = 0x01
    static let aacSoundFormat: UInt8 = 10
    /// SoundRate value "44 kHz", mandatory for AAC.
    public static let aacSoundRate: UInt8 = 3

    enum AACPacketType {
        static let sequenceHeader: UInt8 = 0
        static let raw: UInt8 = 1
    }

    /// 0 = 5.5 kHz, 1 = 11 kHz, 2 = 22 kHz, 3 = 44 kHz.
    public var soundRate: UInt8
    public var is16Bit: Bool
    public var isStereo: Bool
    public var packet: FLVAudioPacket

    public init(soundRate: UInt8, is16Bit: Bool, isStereo: Bool, packet: FLVAudioPacket) {
        self.soundRate = soundRate & Self.soundRateMask
        self.is16Bit = is16Bit
        self.isStereo = isStereo
        self.packet = packet
    }

    /// An AAC tag with the flags every encoder sends (44 kHz, 16-bit).
    public static func aac(_ packet: FLVAudioPacket, isStereo: Bool = true) -> FLVAudioTag {
        FLVAudioTag(soundRate: aacSoundRate, is16Bit: true, isStereo: isStereo, packet: packet)
    }

    public init(from buffer: inout ByteBuffer) throws(RTMPError) {
        var copy = buffer
        let first: UInt8 = try copy.readRequiredInteger("audio tag header")
        soundRate = (first >> Self.soundRateShift) & Self.soundRateMask
        is16Bit = first & Self.sixteenBitFlag != 0
        isStereo = first & Self.stereoFlag != 0
        let format = first >> Self.soundFormatShift
        if format == Self.aacSoundFormat {
            let packetType: UInt8 = try copy.readRequiredInteger("AACPacketType")
            let data = copy.readSlice(length: copy.readableBytes) ?? ByteBuffer()
            switch packetType {
            case AACPacketType.sequenceHeader: packet = .aacSequenceHeader(data)
            case AACPacketType.raw: packet = .aacRaw(data)
            default: throw .invalidFLVTag(reason: "AACPacketType \(packetType)")
            }
        } else {
            packet = .other(soundFormat: format, data: copy.readSlice(length: copy.readableBytes) ?? ByteBuffer())
        }
        buffer = copy
    }

    public var encodedSize: Int {
        switch packet {
        case .aacSequenceHeader(let data), .aacRaw(let data): return 2 + data.readableBytes
        case .other(_, let data): return 1 + data.readableBytes
        }
    }

    public func write(to buffer: inout ByteBuffer) {
        writeHeader(to: &buffer)
        switch packet {
        case .aacSequenceHeader(let data), .aacRaw(let data), .other(_, let data):
            buffer.writeImmutableBuffer(data)
        }
    }

    /// The bytes before the data: format and flags, then for AAC the packet type. With `write(to:)` ignoring
    /// the packet's data, a sender can put bytes it holds elsewhere after it without first copying them
    /// into a `ByteBuffer`.
    public func writeHeader(to buffer: inout ByteBuffer) {
        let flags = soundRate << Self.soundRateShift | (is16Bit ? Self.sixteenBitFlag : 0) | (isStereo ? Self.stereoFlag : 0)
        switch packet {
        case .aacSequenceHeader:
            buffer.writeInteger(Self.aacSoundFormat << Self.soundFormatShift | flags)
            buffer.writeInteger(AACPacketType.sequenceHeader)
        case .aacRaw:
            buffer.writeInteger(Self.aacSoundFormat << Self.soundFormatShift | flags)
            buffer.writeInteger(AACPacketType.raw)
        case .other(let format, _):
            buffer.writeInteger(format << Self.soundFormatShift | flags)
        }
    }
}
