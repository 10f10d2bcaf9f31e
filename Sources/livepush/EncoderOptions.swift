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

    @Option(help: "Peak bitrate, e.g. 3M (default: the bitrate, CBR-like). Above the bitrate lets busy scenes borrow bits; a link with room to spare can take it.")
    var maxrate: String?

    @Option(help: "Rate-control buffer: bits (1M) or a time (0.5s = half a second of the bitrate; default 1s). Shorter keeps frame sizes even, for low latency over WHEP, SRT or Wi-Fi.")
    var bufsize: String?

    @Option(help: "x264/x265 tune: zerolatency (the default: no frame held back), film, animation, … (comma-separated), or none.")
    var tune: String?

    @Option(help: "Encoder threads (default 0: the encoder picks from the core count). Cap it on a Pi or a shared machine to leave cores for capture and outputs.")
    var threads: Int?

    @Flag(help: "Step down size, then frame rate, when the encoder cannot keep up, and back up with headroom (the camera's `adapt: {cpu: true}`).")
    var adaptCpu = false

    @Option(help: "With --adapt-cpu: the smallest size to step down to, WxH (default 640x360).")
    var adaptMinSize: String?

    @Option(help: "With --adapt-cpu: the lowest frame rate to step down to (default 15).")
    var adaptMinFps: Int?

    @Option(help: "With --adapt-cpu: sustained headroom before a step back up, e.g. 30s (the default), growing after a step up that failed.")
    var adaptUpAfter: String?

    /// The camera's `adapt:` mapping, nil without --adapt-cpu.
    func adaptMapping() throws -> ConfigDraft.Mapping? {
        guard adaptCpu else {
            if adaptMinSize != nil || adaptMinFps != nil || adaptUpAfter != nil {
                throw ValidationError("--adapt-min-size, --adapt-min-fps and --adapt-up-after tune CPU adaptation: add --adapt-cpu")
            }
            return nil
        }
        var adapt = ConfigDraft.Mapping()
        adapt.set("cpu", "true")
        adapt.set("min_size", adaptMinSize)
        adapt.set("min_fps", adaptMinFps.map { "\($0)" })
        adapt.set("up_after", adaptUpAfter)
        return adapt
    }

    /// The `encoder:` mapping of a config.
    var mapping: ConfigDraft.Mapping {
        var encoder = ConfigDraft.Mapping()
        encoder.set("name", self.encoder)
        encoder.set("bitrate", bitrate)
        encoder.set("keyint", "\(keyint)")
        encoder.set("preset", preset)
        encoder.set("profile", profile)
        encoder.set("maxrate", maxrate)
        encoder.set("bufsize", bufsize)
        encoder.set("tune", tune)
        encoder.set("threads", threads.map { "\($0)" })
        return encoder
    }
}
