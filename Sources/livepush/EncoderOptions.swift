import ArgumentParser

/// Encoder options with the names streamers know from OBS and ffmpeg.
struct EncoderOptions: ParsableArguments {
    @Option(help: "Encoder by FFmpeg name: auto (default: h264_v4l2m2m when a V4L2 M2M encoder such as a Raspberry Pi 4's works, else libx264), libx264, h264_vaapi, libx265, ... (`livepush encoders`).")
    var encoder: String = "auto"

    @Option(help: "Target bitrate, e.g. 2500k or 4M.")
    var bitrate: String = "2500k"

    @Option(help: "Seconds between keyframes.")
    var keyint: Double = 2

    @Option(help: "x264 preset (ultrafast … veryslow; mapped for other encoders), or SVT-AV1's 0…13.")
    var preset: String = "veryfast"

    @Option(help: "H.264 profile: baseline, main or high.")
    var profile: String = "high"

    /// The `encoder:` mapping of a config.
    var mapping: ConfigDraft.Mapping {
        var encoder = ConfigDraft.Mapping()
        encoder.set("name", self.encoder)
        encoder.set("bitrate", bitrate)
        encoder.set("keyint", "\(keyint)")
        encoder.set("preset", preset)
        encoder.set("profile", profile)
        return encoder
    }
}
