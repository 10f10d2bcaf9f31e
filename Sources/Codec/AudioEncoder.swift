import MediaCore
import CFFmpeg
import LibAV

/// AAC-LC (FFmpeg's native `aac`) or Opus (`libopus`) over libavcodec.
///
/// Captured chunks arrive in any size (10 ms from ALSA); the encoder needs exactly
/// ``frameSize`` sample frames per call, so samples wait in a small FIFO. Timestamps count
/// samples from the first chunk's capture time (time base 1/sampleRate), so they stay exact over
/// hours; the encoder's priming (``primingSamples``: 1024 for AAC, 312 for Opus) makes its first
/// packets start that much earlier, and a player drops those samples (MP4 edit list, Opus pre-skip).
/// After a pause in capture (``resumeAfterPause()``) the count jumps over the pause, so audio stays
/// on the video's clock.
/// Owned by one thread.
public final class AudioEncoder {
    public let settings: AudioEncoderSettings
    public let frameSize: Int
    public let primingSamples: Int
    /// AAC: the AudioSpecificConfig; Opus: the OpusHead. Raw packets need it to be decoded.
    public let extradata: [UInt8]

    private let context: UnsafeMutablePointer<AVCodecContext>
    private let frame: UnsafeMutablePointer<AVFrame>
    private let packet: UnsafeMutablePointer<AVPacket>
    private let sampleFormat: AVSampleFormat
    private var pending: [Int16] = []
    private var samplesSent: Int64 = 0
    private var timelineStartNanos: Int64?
    /// The next chunk follows a pause: see ``resumeAfterPause()``.
    private var resumingAfterPause = false

    public init(settings: AudioEncoderSettings) throws(CodecError) {
        try settings.validate()
        let name = settings.codec.encoderName
        guard let encoder = avcodec_find_encoder_by_name(name) else {
            throw .encoderNotAvailable(name: name, available: AudioCodec.allCases.map(\.encoderName).filter { avcodec_find_encoder_by_name($0) != nil })
        }
        guard let format = Self.preferredSampleFormat(encoder), let context = avcodec_alloc_context3(encoder),
              let frame = av_frame_alloc(), let packet = av_packet_alloc() else {
            throw .encoderOpenFailed(name: name, error: FFmpegError(operation: "allocate", message: "no usable sample format or out of memory"))
        }
        let rate = Int32(settings.format.sampleRate)
        context.pointee.sample_fmt = format
        context.pointee.sample_rate = rate
        av_channel_layout_default(&context.pointee.ch_layout, Int32(settings.format.channels))
        context.pointee.bit_rate = Int64(settings.bitrateBitsPerSecond)
        context.pointee.time_base = AVRational(num: 1, den: rate)
        context.pointee.frame_size = Int32(settings.codec.frameSize)
        // Raw packets plus out-of-band config (RTMP's AAC sequence header), no ADTS.
        context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        let opened = avcodec_open2(context, encoder, nil)
        guard opened >= 0 else {
            CodecObjects.free(context: context)
            throw .encoderOpenFailed(name: name, error: FFmpegError(operation: "avcodec_open2", code: opened))
        }
        self.settings = settings
        self.context = context
        self.frame = frame
        self.packet = packet
        sampleFormat = format
        frameSize = Int(context.pointee.frame_size)
        primingSamples = Int(context.pointee.initial_padding)
        extradata = context.pointee.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(context.pointee.extradata_size))) } ?? []
        frame.pointee.format = format.rawValue
        frame.pointee.sample_rate = rate
        frame.pointee.nb_samples = Int32(frameSize)
        av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout)
        let allocated = av_frame_get_buffer(frame, 0)
        guard allocated >= 0 else { throw .ffmpeg(FFmpegError(operation: "av_frame_get_buffer", code: allocated)) }
    }

    deinit { CodecObjects.free(context: context, frame: frame, packet: packet) }

    /// AAC only: the AudioSpecificConfig for RTMP's sequence header and MP4's esds.
    public var audioSpecificConfig: [UInt8]? { settings.codec == .aac ? extradata : nil }

    public func encode(_ chunk: AudioChunk, emit: (EncodedAudioFrame) -> Void) throws(CodecError) {
        guard chunk.format == settings.format else {
            throw .invalidSetting(setting: "audio-format", value: "\(chunk.format)", reason: "the encoder was opened for \(settings.format)")
        }
        if timelineStartNanos == nil { timelineStartNanos = chunk.captureTimeNanos }
        if resumingAfterPause {
            resumingAfterPause = false
            try skipPause(until: chunk.captureTimeNanos, emit: emit)
        }
        pending.append(contentsOf: chunk.samples)
        let frameSamples = frameSize * settings.format.channels
        while pending.count >= frameSamples {
            try send(count: frameSize)
            pending.removeFirst(frameSamples)
            try drain(emit)
        }
    }

    /// Capture paused (an on-demand camera idled with its microphone) and goes on with the next
    /// chunk: that chunk is timestamped at its capture time rather than right after the last sample
    /// before the pause, as the video frames captured with it are. The encoder stays open, so the
    /// outputs keep their track (the same AudioSpecificConfig or OpusHead) and see no new priming.
    public func resumeAfterPause() { resumingAfterPause = true }

    /// Completes the frame cut short by the pause with silence, then moves the sample count to
    /// `nanos` on the timeline; a time before the count's end (a clock that did not move) leaves it
    /// where it is.
    ///
    /// The encoder's packets lag its input frames by the priming (312 samples for Opus), so one
    /// packet spans the jump and is stamped on the side before it. The new audio is led in by that
    /// packet's share of silence, so the packet holds none of it and the new audio's first packet
    /// starts exactly at `nanos` (for AAC, whose priming is one whole frame, the lead is nothing).
    private func skipPause(until nanos: Int64, emit: (EncodedAudioFrame) -> Void) throws(CodecError) {
        let frameSamples = frameSize * settings.format.channels
        if !pending.isEmpty {
            pending.append(contentsOf: repeatElement(0, count: frameSamples - pending.count))
            try send(count: frameSize)
            pending.removeAll(keepingCapacity: true)
            try drain(emit)
        }
        let due = settings.format.frames(forNanos: max(0, nanos - (timelineStartNanos ?? nanos)))
        let lead = (frameSize - primingSamples % frameSize) % frameSize
        guard due - Int64(lead) > samplesSent else { return }
        samplesSent = due - Int64(lead)
        pending.append(contentsOf: repeatElement(0, count: lead * settings.format.channels))
    }

    /// Encodes what is left (a short last frame) and drains the encoder.
    public func flush(emit: (EncodedAudioFrame) -> Void) throws(CodecError) {
        if !pending.isEmpty {
            try send(count: pending.count / settings.format.channels)
            pending.removeAll()
        }
        let result = avcodec_send_frame(context, nil)
        guard result >= 0 || result == lp_averror_eof() else { throw .ffmpeg(FFmpegError(operation: "avcodec_send_frame", code: result)) }
        try drain(emit)
    }

    /// Converts the first `count` pending sample frames into the encoder's format and sends them.
    private func send(count: Int) throws(CodecError) {
        let writable = av_frame_make_writable(frame)
        guard writable >= 0 else { throw .ffmpeg(FFmpegError(operation: "av_frame_make_writable", code: writable)) }
        frame.pointee.nb_samples = Int32(count)
        frame.pointee.pts = samplesSent
        let channels = settings.format.channels
        let scale: Float = 1 / 32_768
        pending.withUnsafeBufferPointer { source in
            switch sampleFormat {
            case AV_SAMPLE_FMT_S16:
                frame.pointee.data.0?.withMemoryRebound(to: Int16.self, capacity: count * channels) { out in // portability: native: FFmpeg's samples are in the machine's order
                    for index in 0..<(count * channels) { out[index] = source[index] }
                }
            case AV_SAMPLE_FMT_FLT:
                frame.pointee.data.0?.withMemoryRebound(to: Float.self, capacity: count * channels) { out in // portability: native: FFmpeg's samples are in the machine's order
                    for index in 0..<(count * channels) { out[index] = Float(source[index]) * scale }
                }
            default: // FLTP: one plane per channel
                let planes = [frame.pointee.data.0, frame.pointee.data.1]
                for channel in 0..<channels {
                    planes[channel]?.withMemoryRebound(to: Float.self, capacity: count) { out in // portability: native: FFmpeg's samples are in the machine's order
                        for index in 0..<count { out[index] = Float(source[index * channels + channel]) * scale }
                    }
                }
            }
        }
        samplesSent += Int64(count)
        let result = avcodec_send_frame(context, frame)
        guard result >= 0 else { throw .ffmpeg(FFmpegError(operation: "avcodec_send_frame", code: result)) }
    }

    private func drain(_ emit: (EncodedAudioFrame) -> Void) throws(CodecError) {
        let rate = Int64(settings.format.sampleRate)
        let start = timelineStartNanos ?? 0
        while true {
            let result = avcodec_receive_packet(context, packet)
            if result == lp_averror_eagain() || result == lp_averror_eof() { return }
            guard result >= 0 else { throw .ffmpeg(FFmpegError(operation: "avcodec_receive_packet", code: result)) }
            defer { av_packet_unref(packet) }
            let data = packet.pointee.data.map { [UInt8](UnsafeBufferPointer(start: $0, count: Int(packet.pointee.size))) } ?? []
            let duration = packet.pointee.duration > 0 ? packet.pointee.duration : Int64(frameSize)
            emit(EncodedAudioFrame(codec: settings.codec, data: data, ptsNanos: start + packet.pointee.pts * 1_000_000_000 / rate,
                                   sampleCount: Int(duration), durationNanos: duration * 1_000_000_000 / rate))
        }
    }

    /// Interleaved s16 when the encoder takes it (no conversion), else planar or interleaved float.
    private static func preferredSampleFormat(_ encoder: UnsafePointer<AVCodec>) -> AVSampleFormat? {
        var list: UnsafePointer<AVSampleFormat>?
        let count = lp_codec_sample_formats(encoder, &list)
        guard count >= 0, let list else { return nil }
        let formats = UnsafeBufferPointer(start: list, count: Int(count))
        return [AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_FLT].first { formats.contains($0) }
    }
}
