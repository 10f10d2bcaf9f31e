import NIOCore

/// The body of an audio tag after its first byte.
public enum FLVAudioPacket: Sendable, Hashable {
    /// AudioSpecificConfig (ISO 14496-3 §1.6.2.1), sent once before the first frame.
    case aacSequenceHeader(ByteBuffer)
    /// One raw AAC access unit, without ADTS header.
    case aacRaw(ByteBuffer)
    /// Any non-AAC SoundFormat (MP3, Opus via enhanced audio, …), kept raw.
    case other(soundFormat: UInt8, data: ByteBuffer)
}
