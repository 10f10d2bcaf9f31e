import Capture
import Codec

/// A camera's encoder, with the names streamers know from OBS and ffmpeg.
public struct EncoderConfig: Sendable, Equatable {
    /// libavcodec encoder name (`libx264`, `h264_v4l2m2m`, …).
    public var name: String
    public var bitrateBitsPerSecond: Int
    public var keyframeIntervalSeconds: Double
    public var preset: String
    public var profile: VideoEncoderSettings.Profile

    public init(name: String = "libx264", bitrateBitsPerSecond: Int = 2_500_000, keyframeIntervalSeconds: Double = 2,
                preset: String = "veryfast", profile: VideoEncoderSettings.Profile = .high) {
        self.name = name
        self.bitrateBitsPerSecond = bitrateBitsPerSecond
        self.keyframeIntervalSeconds = keyframeIntervalSeconds
        self.preset = preset
        self.profile = profile
    }

    /// The settings the pipeline's encoder opens with for this capture size and rate.
    public func settings(size: VideoSize, framesPerSecond: Double) -> VideoEncoderSettings {
        VideoEncoderSettings(encoderName: name, width: size.width, height: size.height,
                             framesPerSecond: max(1, Int(framesPerSecond.rounded())),
                             bitrateBitsPerSecond: bitrateBitsPerSecond, keyframeIntervalSeconds: keyframeIntervalSeconds,
                             preset: preset, profile: profile)
    }
}
