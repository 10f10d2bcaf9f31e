import CFFmpeg
import LibAV

/// An opened libavcodec encoder context configured from ``VideoEncoderSettings``: the one place
/// settings become AVCodecContext fields and private options.
///
/// Time base: 1/1_000_000_000, so pts and dts are the capture timestamps in nanoseconds
/// (CLOCK_MONOTONIC) unchanged on the way in and out — no rounding to 90 kHz in the encoder.
final class EncoderContext {
    static let timeBase = AVRational(num: 1, den: 1_000_000_000)

    let pointer: UnsafeMutablePointer<AVCodecContext>
    let codec: VideoCodec
    let encoderName: String
    /// The V4L2 M2M node a `*_v4l2m2m` encoder opened (nil for other encoders), for live controls.
    let m2mDevice: M2MEncoderDevice?
    /// Whether a frame sent marked I comes out a keyframe (not SVT-AV1: ``EncoderFamily/keysFramesOnRequest``).
    let keysFramesOnRequest: Bool
    /// Frames sent to it since it opened: an encoder that keys only by its own count (SVT-AV1) keys
    /// frame 0 and every GOP length after.
    var framesSent = 0

    /// Settings an encoder could not take gave a clear error before we got here (``VideoEncoderSettings/validate()``);
    /// what is left (a preset this encoder does not know, a refused open) throws naming the setting.
    init(settings: VideoEncoderSettings) throws(CodecError) {
        try settings.validate()
        let (encoder, codec) = try VideoEncoder.findEncoder(named: settings.encoderName) { VideoEncoder.availableEncoders().map(\.name) }
        guard let context = avcodec_alloc_context3(encoder) else {
            throw .ffmpeg(FFmpegError(operation: "avcodec_alloc_context3", code: lp_averror(ENOMEM)))
        }
        let c = context
        c.pointee.width = Int32(settings.width)
        c.pointee.height = Int32(settings.height)
        c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        c.pointee.time_base = Self.timeBase
        c.pointee.framerate = AVRational(num: Int32(settings.framesPerSecond), den: 1)
        c.pointee.gop_size = Int32(settings.encoderGOPFrames)
        c.pointee.max_b_frames = 0 // live: B-frames only add latency
        c.pointee.thread_count = Int32(settings.threads)
        Self.applyRate(settings, to: c)
        // No AV_CODEC_FLAG_GLOBAL_HEADER: parameter sets stay in band on every keyframe, so a
        // viewer joining at any keyframe can decode; outputs that need them out of band read
        // ``ParameterSets`` collected from the stream.
        var device: M2MEncoderDevice?
        do throws(CodecError) {
            try Self.setPrivateOptions(settings, codec: codec, on: context)
            let open = { EncoderLifecycle.serialized { ThreadSchedulingGuard.preserving { avcodec_open2(context, encoder, nil) } } }
            let result: Int32
            if settings.encoderName.hasSuffix("_v4l2m2m") {
                (result, device) = M2MEncoderDevice.opening(open)
            } else {
                result = open()
            }
            guard result >= 0 else {
                throw .encoderOpenFailed(name: settings.encoderName, error: FFmpegError(operation: "avcodec_open2", code: result))
            }
            if codec == .h264 { try device?.setKeyFrameInterval(frames: settings.keyframeIntervalFrames) }
        } catch {
            EncoderLifecycle.serialized { CodecObjects.free(context: context) }
            throw error
        }
        // Stored only once open succeeded, so a throwing init never reaches deinit's free.
        self.pointer = context
        self.codec = codec
        self.encoderName = settings.encoderName
        keysFramesOnRequest = EncoderFamily(encoderName: settings.encoderName).keysFramesOnRequest
        self.m2mDevice = device
    }

    /// Ends the stream before freeing: SVT-AV1 1.4 hangs in `svt_av1_enc_deinit` when closed
    /// without an end-of-stream. Not a V4L2 M2M encoder: its drain waits without a timeout for the
    /// driver's last buffer, which a wedged encoder never returns (and closing needs no drain).
    /// Closed one at a time with any other encoder's open or close (``EncoderLifecycle``).
    deinit {
        var drain: UnsafeMutablePointer<AVPacket>?
        if m2mDevice == nil, avcodec_send_frame(pointer, nil) >= 0, let packet = av_packet_alloc() {
            while avcodec_receive_packet(pointer, packet) >= 0 { av_packet_unref(packet) }
            drain = packet
        }
        EncoderLifecycle.serialized { CodecObjects.free(context: pointer, packet: drain) }
    }

    /// Sets the rate-control fields. libx264's wrapper notices changes to these between frames and
    /// calls `x264_encoder_reconfig` (FFmpeg's libx264.c `reconfig_encoder`), so the same call serves
    /// for live bitrate changes.
    static func applyRate(_ settings: VideoEncoderSettings, to context: UnsafeMutablePointer<AVCodecContext>) {
        context.pointee.bit_rate = Int64(settings.bitrateBitsPerSecond)
        // SVT-AV1 rejects maxrate == bitrate; it runs its own constant-rate mode without one.
        let maxRate = settings.encoderName == "libsvtav1" && settings.effectiveMaxBitrate == settings.bitrateBitsPerSecond
            ? 0 : settings.effectiveMaxBitrate
        context.pointee.rc_max_rate = Int64(maxRate)
        context.pointee.rc_buffer_size = Int32(clamping: settings.effectiveBufferSizeBits)
    }

    /// Encoder-specific options through the private-options AVClass, each only where the encoder has it.
    private static func setPrivateOptions(_ settings: VideoEncoderSettings, codec: VideoCodec,
                                          on context: UnsafeMutablePointer<AVCodecContext>) throws(CodecError) {
        guard let options = context.pointee.priv_data else { return }
        func has(_ name: String) -> Bool { av_opt_find(options, name, nil, 0, 0) != nil }
        func set(_ name: String, _ value: String, setting: String) throws(CodecError) {
            guard has(name) else { return }
            let result = av_opt_set(options, name, value, 0)
            guard result >= 0 else {
                throw .invalidSetting(setting: setting, value: value, reason: "\(settings.encoderName) refused it (\(FFmpegError(operation: name, code: result).message))")
            }
        }
        let family = EncoderFamily(encoderName: settings.encoderName)
        if !settings.preset.isEmpty, let preset = try family.presetValue(for: settings.preset) { try set("preset", preset, setting: "preset") }
        if family.tunes != nil, let tune = settings.tune { try set("tune", tune, setting: "tune") }
        for option in family.lowDelayOptions { try set(option.name, option.value, setting: option.name) }
        if codec == .h264 { try set("profile", settings.profile.rawValue, setting: "profile") }
        if let level = settings.level { try set("level", level, setting: "level") }
        // A keyframe request must give an IDR, not an open-GOP I-frame.
        try set("forced-idr", "1", setting: "forced-idr")
        // Fixed keyframe cadence (no scene-cut keyframes), closed GOPs, SPS/PPS before every IDR.
        try set("x264-params", "scenecut=0:open-gop=0:repeat-headers=1", setting: "x264-params")
        try set("x265-params", "scenecut=0:open-gop=0:repeat-headers=1:log-level=error", setting: "x265-params")
    }
}

extension VideoCodec {
    init?(codecID: AVCodecID) {
        switch codecID {
        case AV_CODEC_ID_H264: self = .h264
        case AV_CODEC_ID_HEVC: self = .hevc
        case AV_CODEC_ID_AV1: self = .av1
        default: return nil
        }
    }
}
