import MediaCore
/// Audio codecs livepush encodes: AAC-LC for RTMP and recording, Opus for WebRTC.
public enum AudioCodec: String, Sendable, CaseIterable, CustomStringConvertible {
    case aac
    case opus

    public var description: String { rawValue }

    /// FFmpeg's native AAC encoder; libopus (FFmpeg's native Opus encoder is experimental).
    var encoderName: String { self == .aac ? "aac" : "libopus" }

    /// Sample frames per encoded frame: 1024 for AAC-LC, 960 (20 ms at 48 kHz) for Opus.
    public var frameSize: Int { self == .aac ? 1024 : 960 }
}

public struct AudioEncoderSettings: Sendable, Equatable {
    public var codec: AudioCodec
    public var format: AudioFormat
    public var bitrateBitsPerSecond: Int

    /// Defaults: 128 kb/s AAC (what YouTube and Twitch suggest), 64 kb/s Opus (WebRTC's usual).
    public init(codec: AudioCodec, format: AudioFormat = AudioFormat(), bitrateBitsPerSecond: Int? = nil) {
        self.codec = codec
        self.format = format
        self.bitrateBitsPerSecond = bitrateBitsPerSecond ?? (codec == .aac ? 128_000 : 64_000)
    }

    public func validate() throws(CodecError) {
        do throws(MediaError) { try format.validate() } catch { throw .media(error) }
        if codec == .opus, format.sampleRate != 48_000 {
            throw .invalidSetting(setting: "sample-rate", value: "\(format.sampleRate)", reason: "Opus runs at 48000 Hz; capture at 48000")
        }
        guard (8_000...512_000).contains(bitrateBitsPerSecond) else {
            throw .invalidSetting(setting: "audio-bitrate", value: "\(bitrateBitsPerSecond)", reason: "must be 8000…512000 bits per second")
        }
    }
}

/// One encoded audio frame. Timestamps are on the capture clock (CLOCK_MONOTONIC, ns): the
/// first frames carry the encoder's priming, so their pts lies before the first captured sample.
public struct EncodedAudioFrame: Sendable {
    public var codec: AudioCodec
    /// Raw AAC (no ADTS header) or one Opus packet.
    public var data: [UInt8]
    public var ptsNanos: Int64
    /// Sample frames this packet decodes to, and its duration.
    public var sampleCount: Int
    public var durationNanos: Int64

    public init(codec: AudioCodec, data: [UInt8], ptsNanos: Int64, sampleCount: Int, durationNanos: Int64) {
        self.codec = codec
        self.data = data
        self.ptsNanos = ptsNanos
        self.sampleCount = sampleCount
        self.durationNanos = durationNanos
    }
}
