import ArgumentParser
import Capture
import Codec
import Pipeline

/// Encoder options with the names streamers know from OBS and ffmpeg.
struct EncoderOptions: ParsableArguments {
    @Option(help: "Encoder by FFmpeg name: libx264 (default), h264_v4l2m2m (Raspberry Pi 4), h264_vaapi, libx265, ... (`livepush encoders`).")
    var encoder: String = "libx264"

    @Option(help: "Target bitrate, e.g. 2500k or 4M.")
    var bitrate: String = "2500k"

    @Option(help: "Seconds between keyframes.")
    var keyint: Double = 2

    @Option(help: "x264 preset (ultrafast … veryslow).")
    var preset: String = "veryfast"

    @Option(help: "H.264 profile: baseline, main or high.")
    var profile: String = "high"

    func settings(size: VideoSize, fps: Double) throws -> VideoEncoderSettings {
        guard let profile = VideoEncoderSettings.Profile(rawValue: profile) else {
            throw ValidationError("unknown profile '\(profile)': use baseline, main or high")
        }
        let settings = VideoEncoderSettings(encoderName: encoder, width: size.width, height: size.height,
                                            framesPerSecond: Int(fps.rounded()),
                                            bitrateBitsPerSecond: try BitrateParser.bitsPerSecond(parsing: bitrate),
                                            keyframeIntervalSeconds: keyint, preset: preset, profile: profile)
        try settings.validate()
        return settings
    }
}
