import Capture
import Codec
import MediaCore

/// A camera's encoder, with the names streamers know from OBS and ffmpeg.
public struct EncoderConfig: Sendable, Equatable {
    /// libavcodec encoder name (`libx264`, `h264_v4l2m2m`, …), or `auto` (the default): the
    /// hardware V4L2 M2M encoder when one works here, else libx264 (``EncoderPick``).
    public var name: String
    public var bitrateBitsPerSecond: Int
    public var keyframeIntervalSeconds: Double
    public var preset: String
    public var profile: VideoEncoderSettings.Profile
    /// Peak bitrate (`maxrate`, ffmpeg `-maxrate`); nil keeps it at the bitrate (CBR-like).
    public var maxBitrateBitsPerSecond: Int?
    /// Rate-control buffer (`bufsize`, ffmpeg `-bufsize`); nil is one second of the bitrate. A
    /// shorter buffer holds each frame's size closer to the average: less delay behind a
    /// low-latency link, at some cost in quality on busy scenes.
    public var bufferSize: BufferSize?
    /// x264/x265 tune (`zerolatency`, `film`, …; comma-separated); nil for none.
    public var tune: String?
    /// Encoder threads; 0 lets the encoder pick from the core count (a Pi may want fewer, leaving a core for capture and outputs).
    public var threads: Int

    public init(name: String = EncoderPick.automaticName, bitrateBitsPerSecond: Int = 2_500_000, keyframeIntervalSeconds: Double = 2,
                preset: String = "veryfast", profile: VideoEncoderSettings.Profile = .high, maxBitrateBitsPerSecond: Int? = nil,
                bufferSize: BufferSize? = nil, tune: String? = "zerolatency", threads: Int = 0) {
        self.name = name
        self.bitrateBitsPerSecond = bitrateBitsPerSecond
        self.keyframeIntervalSeconds = keyframeIntervalSeconds
        self.preset = preset
        self.profile = profile
        self.maxBitrateBitsPerSecond = maxBitrateBitsPerSecond
        self.bufferSize = bufferSize
        self.tune = tune
        self.threads = threads
    }

    /// The pick behind `auto`, nil when a name was given.
    public var pick: EncoderPick? { name == EncoderPick.automaticName ? EncoderPick.automatic : nil }

    /// The encoder that opens: the name given, or what `auto` picked.
    public var resolvedName: String { pick?.name ?? name }

    /// The settings the pipeline's encoder opens with for this capture size and rate (`encoderName`:
    /// another name than ``resolvedName``, e.g. the configured `auto` to check without probing the hardware).
    public func settings(size: VideoSize, framesPerSecond: Double, encoderName: String? = nil) -> VideoEncoderSettings {
        VideoEncoderSettings(encoderName: encoderName ?? resolvedName, width: size.width, height: size.height,
                             framesPerSecond: max(1, Int(framesPerSecond.rounded())),
                             bitrateBitsPerSecond: bitrateBitsPerSecond, maxBitrateBitsPerSecond: maxBitrateBitsPerSecond,
                             bufferSizeBits: bufferSize?.bits(atBitrate: bitrateBitsPerSecond),
                             keyframeIntervalSeconds: keyframeIntervalSeconds, preset: preset, tune: tune, profile: profile, threads: threads)
    }
}
