import MediaCore
/// What an output needs to describe an audio track before its first frame.
public struct AudioTrack: Sendable, Equatable {
    public var codec: AudioCodec
    public var format: AudioFormat
    /// The AAC AudioSpecificConfig (RTMP's sequence header, MP4's esds); nil for Opus.
    public var audioSpecificConfig: [UInt8]?

    public init(codec: AudioCodec, format: AudioFormat, audioSpecificConfig: [UInt8]?) {
        self.codec = codec
        self.format = format
        self.audioSpecificConfig = audioSpecificConfig
    }
}
