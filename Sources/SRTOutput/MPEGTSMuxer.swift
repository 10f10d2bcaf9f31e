import CFFmpeg
import CFFmpegFormat
import Codec
import LibAV

/// MPEG-TS from libavformat's mpegts muxer, written into livepush's own AVIO callback in whole
/// SRT payloads: the AVIO buffer is 7 × 188 = 1316 bytes, so each callback hands over at most
/// one payload of whole TS packets. The muxer sends PAT/PMT every 100 ms and PCR on the video PID
/// (its defaults, what broadcast receivers expect); video goes out as soon as a frame is muxed
/// (the buffer is flushed after it), audio rides along with the next flush.
///
/// One per connection (a receiver that joins gets PAT/PMT and continuity counters from zero),
/// on the output's thread. Timestamps are relative to `originNanos`, which the output keeps across
/// reconnects so the timeline continues.
final class MPEGTSMuxer {
    /// Takes one payload; false when it could not be sent (the muxer then fails the write).
    typealias PayloadSink = (UnsafeRawBufferPointer) -> Bool

    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let sink: PayloadSink
    private let originNanos: Int64
    private let videoTimeBase = AVRational(num: 1, den: 90_000)
    private let nanos = AVRational(num: 1, den: 1_000_000_000)
    private var audioStreamIndex: Int32?
    /// Payloads handed to the sink (for tests and the status).
    private(set) var payloadsWritten = 0

    /// `audio` adds an AAC track (the muxer writes ADTS headers from its AudioSpecificConfig) or an
    /// Opus one (48 kHz, mono or stereo: the Opus-in-TS mapping the muxer and demuxers know).
    init(codec: VideoCodec, audio: AudioTrack?, originNanos: Int64, sink: @escaping PayloadSink) throws(SRTOutputError) {
        self.sink = sink
        self.originNanos = originNanos
        if let failure = lp_avformat_open_library() { throw .muxerFailed(reason: String(cString: failure)) }
        var context: UnsafeMutablePointer<AVFormatContext>?
        guard lp_avformat_alloc_output_context2(&context, nil, "mpegts", nil) >= 0, let context else {
            throw .muxerFailed(reason: "libavformat has no mpegts muxer")
        }
        self.context = context
        guard let stream = lp_avformat_new_stream(context, nil), let video = stream.pointee.codecpar else { throw .muxerFailed(reason: "out of memory") }
        video.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        switch codec {
        case .h264: video.pointee.codec_id = AV_CODEC_ID_H264
        case .hevc: video.pointee.codec_id = AV_CODEC_ID_HEVC
        case .av1: throw .muxerFailed(reason: "AV1 in MPEG-TS is not supported; use H.264 or HEVC for SRT")
        }
        stream.pointee.time_base = videoTimeBase
        if let audio {
            guard let stream = lp_avformat_new_stream(context, nil), let parameters = stream.pointee.codecpar else { throw .muxerFailed(reason: "out of memory") }
            parameters.pointee.codec_type = AVMEDIA_TYPE_AUDIO
            parameters.pointee.sample_rate = Int32(audio.format.sampleRate)
            av_channel_layout_default(&parameters.pointee.ch_layout, Int32(audio.format.channels))
            switch audio.codec {
            case .aac:
                guard let config = audio.audioSpecificConfig else { throw .muxerFailed(reason: "the AAC track has no AudioSpecificConfig") }
                parameters.pointee.codec_id = AV_CODEC_ID_AAC
                parameters.pointee.extradata = av_mallocz(config.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)).assumingMemoryBound(to: UInt8.self)
                parameters.pointee.extradata.update(from: config, count: config.count)
                parameters.pointee.extradata_size = Int32(config.count)
            case .opus:
                // The muxer writes the 'Opus' registration and DVB extension descriptors and each
                // packet's control header itself; without an OpusHead it describes mono or stereo
                // (channel mapping family 0), which is all the audio pipeline encodes.
                guard audio.format.sampleRate == 48_000, audio.format.channels <= 2 else {
                    throw .muxerFailed(reason: "Opus in MPEG-TS needs 48 kHz mono or stereo (got \(audio.format.sampleRate) Hz, \(audio.format.channels) channels)")
                }
                parameters.pointee.codec_id = AV_CODEC_ID_OPUS
            }
            stream.pointee.time_base = AVRational(num: 1, den: Int32(audio.format.sampleRate))
            audioStreamIndex = stream.pointee.index
        }
        let size = SRTOutputConfiguration.payloadBytes
        guard let buffer = av_malloc(size)?.assumingMemoryBound(to: UInt8.self),
              let io = lp_avio_alloc_context(buffer, Int32(size), 1, Unmanaged.passUnretained(self).toOpaque(), nil, { opaque, bytes, count in
                  guard let opaque, let bytes else { return -1 }
                  let muxer = Unmanaged<MPEGTSMuxer>.fromOpaque(opaque).takeUnretainedValue()
                  return muxer.deliver(UnsafeRawBufferPointer(start: bytes, count: Int(count))) ? count : -5 /* AVERROR(EIO) */
              }, nil) else { throw .muxerFailed(reason: "out of memory") }
        io.pointee.max_packet_size = Int32(size)
        context.pointee.pb = io
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        let header = lp_avformat_write_header(context, nil)
        guard header >= 0 else { throw .muxerFailed(reason: FFmpegError(operation: "write header", code: header).message) }
        packet = av_packet_alloc()
    }

    deinit {
        av_packet_free(&packet)
        guard let context else { return }
        if let io = context.pointee.pb {
            av_freep(&io.pointee.buffer)
            context.pointee.pb = nil
            var owned: UnsafeMutablePointer<AVIOContext>? = io
            lp_avio_context_free(&owned)
        }
        lp_avformat_free_context(context)
    }

    /// Writes out what the muxer and the AVIO buffer still hold (the end of the stream).
    func finish() {
        guard let context else { return }
        _ = lp_av_write_trailer(context)
        if let io = context.pointee.pb { lp_avio_flush(io) }
    }

    private func deliver(_ payload: UnsafeRawBufferPointer) -> Bool {
        payloadsWritten += 1
        return sink(payload)
    }

    /// Muxes one access unit (Annex B, parameter sets in front of each keyframe) and sends it.
    func write(_ frame: EncodedVideoFrame) throws(SRTOutputError) {
        try write(frame.data, stream: 0, timeBase: videoTimeBase, ptsNanos: frame.ptsNanos, dtsNanos: frame.dtsNanos, isKey: frame.isKeyFrame)
        if let io = context?.pointee.pb { lp_avio_flush(io) }
        if let io = context?.pointee.pb, io.pointee.error < 0 {
            throw .sendFailed(reason: FFmpegError(operation: "send", code: io.pointee.error).message)
        }
    }

    /// Muxes one raw AAC or Opus frame; frames from before the timeline's origin are skipped.
    func write(_ frame: EncodedAudioFrame) throws(SRTOutputError) {
        guard let audioStreamIndex, frame.ptsNanos >= originNanos, let stream = context?.pointee.streams[Int(audioStreamIndex)] else { return }
        try write(frame.data, stream: audioStreamIndex, timeBase: stream.pointee.time_base, ptsNanos: frame.ptsNanos, dtsNanos: frame.ptsNanos, isKey: true)
    }

    /// Hands the bytes to the muxer without copying (the packet is not reference-counted).
    private func write(_ bytes: [UInt8], stream: Int32, timeBase: AVRational, ptsNanos: Int64, dtsNanos: Int64, isKey: Bool) throws(SRTOutputError) {
        guard let context, let packet else { return }
        let result = bytes.withUnsafeBufferPointer { buffer -> Int32 in
            packet.pointee.data = UnsafeMutablePointer(mutating: buffer.baseAddress)
            packet.pointee.size = Int32(buffer.count)
            packet.pointee.stream_index = stream
            packet.pointee.pts = av_rescale_q(ptsNanos - originNanos, nanos, timeBase)
            packet.pointee.dts = av_rescale_q(dtsNanos - originNanos, nanos, timeBase)
            packet.pointee.flags = isKey ? AV_PKT_FLAG_KEY : 0
            packet.pointee.buf = nil
            defer {
                packet.pointee.data = nil
                packet.pointee.size = 0
            }
            return lp_av_write_frame(context, packet)
        }
        guard result >= 0 else { throw .sendFailed(reason: FFmpegError(operation: "mux", code: result).message) }
    }
}
