import CFFmpeg
import CFFmpegFormat
import Codec
import MediaCore

/// One fragmented MP4 file written with libavformat.
///
/// Fragmented (an empty `moov`, then a `moof`+`mdat` per fragment, cut at every keyframe and at
/// least every second) so that a crash, `kill -9` or power cut leaves a file that plays up to the
/// last complete fragment; each packet is flushed to the kernel as soon as it is muxed.
/// Before each `moof` libavformat writes a `prft` box (ISO/IEC 14496-12 §8.16.5, version 1, flags 24:
/// the time of capture) holding the wall-clock capture time of the fragment's first video sample,
/// which each video packet carries as `AV_PKT_DATA_PRFT` side data (docs/capture-time.md).
/// Owned by one thread.
final class FragmentedMP4Writer {
    let path: String
    /// What the video sample entry describes: every key frame written must use these.
    let parameterSets: ParameterSets
    let width: Int, height: Int
    /// Monotonic capture stamps → wall clock, for the `prft` boxes.
    let wallClock: WallClockMapping
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private let videoTimeBase = AVRational(num: 1, den: 90_000)
    private let nanos = AVRational(num: 1, den: 1_000_000_000)
    private var firstDtsNanos: Int64?
    private var audioStreamIndex: Int32?
    private var audioTimeBase = AVRational(num: 1, den: 48_000)
    private var packet: UnsafeMutablePointer<AVPacket>?
    /// Reused for each sample's length-prefixed bytes, so steady-state writes do not allocate.
    private var sample: [UInt8] = []

    /// Creates the file and writes its header, describing the video track from the first keyframe
    /// and, when given, an AAC audio track.
    init(path: String, firstKeyFrame frame: EncodedVideoFrame, width: Int, height: Int, audio: AudioTrack?,
         wallClock: WallClockMapping) throws(RecordingError) {
        self.path = path
        self.wallClock = wallClock
        parameterSets = frame.parameterSets
        self.width = width
        self.height = height
        if let failure = lp_avformat_open_library() { throw .muxerUnavailable(reason: String(cString: failure)) }
        let extradata = try Self.sampleEntryConfiguration(for: frame)
        var context: UnsafeMutablePointer<AVFormatContext>?
        guard lp_avformat_alloc_output_context2(&context, nil, "mp4", path) >= 0, let context else {
            throw .cannotCreate(path: path, reason: "libavformat has no mp4 muxer")
        }
        self.context = context
        do {
            guard let stream = lp_avformat_new_stream(context, nil), let parameters = stream.pointee.codecpar else {
                throw RecordingError.cannotCreate(path: path, reason: "out of memory")
            }
            parameters.pointee.codec_type = AVMEDIA_TYPE_VIDEO
            parameters.pointee.codec_id = frame.codec == .h264 ? AV_CODEC_ID_H264 : AV_CODEC_ID_HEVC
            parameters.pointee.width = Int32(width)
            parameters.pointee.height = Int32(height)
            Self.setExtradata(extradata, on: parameters)
            stream.pointee.time_base = videoTimeBase
            if let audio { try addAudioStream(audio, to: context) }
            let opened = lp_avio_open(&context.pointee.pb, path, AVIO_FLAG_WRITE)
            guard opened >= 0 else { throw RecordingError.cannotCreate(path: path, reason: FFmpegErrorText(opened)) }
            context.pointee.flags |= AVFMT_FLAG_FLUSH_PACKETS
            var options: OpaquePointer?
            av_dict_set(&options, "movflags", "frag_keyframe+empty_moov+default_base_moof", 0)
            av_dict_set(&options, "frag_duration", "1000000", 0)
            // A `prft` before each `moof`, from the packets' AV_PKT_DATA_PRFT (the video track is the first).
            av_dict_set(&options, "write_prft", "wallclock", 0)
            // Interleave audio with video within a second, so a crash loses at most that.
            context.pointee.max_interleave_delta = 1_000_000
            defer { av_dict_free(&options) }
            let header = lp_avformat_write_header(context, &options)
            guard header >= 0 else { throw RecordingError.cannotCreate(path: path, reason: FFmpegErrorText(header)) }
        } catch {
            if context.pointee.pb != nil { lp_avio_closep(&context.pointee.pb) }
            lp_avformat_free_context(context)
            self.context = nil
            throw error as? RecordingError ?? .cannotCreate(path: path, reason: "\(error)")
        }
        packet = av_packet_alloc()
    }

    private func addAudioStream(_ audio: AudioTrack, to context: UnsafeMutablePointer<AVFormatContext>) throws(RecordingError) {
        guard audio.codec == .aac, let config = audio.audioSpecificConfig else { throw .unsupportedCodec("\(audio.codec) audio in MP4") }
        guard let stream = lp_avformat_new_stream(context, nil), let parameters = stream.pointee.codecpar else {
            throw .cannotCreate(path: path, reason: "out of memory")
        }
        parameters.pointee.codec_type = AVMEDIA_TYPE_AUDIO
        parameters.pointee.codec_id = AV_CODEC_ID_AAC
        parameters.pointee.sample_rate = Int32(audio.format.sampleRate)
        av_channel_layout_default(&parameters.pointee.ch_layout, Int32(audio.format.channels))
        parameters.pointee.frame_size = Int32(audio.codec.frameSize)
        Self.setExtradata(config, on: parameters)
        audioTimeBase = AVRational(num: 1, den: Int32(audio.format.sampleRate))
        stream.pointee.time_base = audioTimeBase
        audioStreamIndex = stream.pointee.index
    }

    private static func setExtradata(_ bytes: [UInt8], on parameters: UnsafeMutablePointer<AVCodecParameters>) {
        parameters.pointee.extradata = av_mallocz(bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)).assumingMemoryBound(to: UInt8.self)
        parameters.pointee.extradata.update(from: bytes, count: bytes.count)
        parameters.pointee.extradata_size = Int32(bytes.count)
    }

    deinit {
        av_packet_free(&packet)
        if let context {
            if context.pointee.pb != nil { lp_avio_closep(&context.pointee.pb) }
            lp_avformat_free_context(context)
        }
    }

    /// The avcC/hvcC record the MP4 sample entry carries.
    static func sampleEntryConfiguration(for frame: EncodedVideoFrame) throws(RecordingError) -> [UInt8] {
        let sets = frame.parameterSets
        guard sets.isComplete else { throw .missingParameterSets }
        do {
            switch frame.codec {
            case .h264: return try AVCDecoderConfigurationRecord(sps: sets.sps, pps: sets.pps).bytes
            case .hevc: return try HEVCDecoderConfigurationRecord(vps: sets.vps, sps: sets.sps, pps: sets.pps).bytes
            case .av1: throw RecordingError.unsupportedCodec("AV1")
            }
        } catch let error as RecordingError {
            throw error
        } catch {
            throw .missingParameterSets
        }
    }

    /// Muxes one access unit (length-prefixed samples, timestamps relative to the file's first frame);
    /// returns the sample's size in bytes.
    func write(_ frame: EncodedVideoFrame) throws(RecordingError) -> Int {
        let origin = firstDtsNanos ?? frame.dtsNanos
        firstDtsNanos = origin
        sample.removeAll(keepingCapacity: true)
        frame.appendLengthPrefixed(to: &sample)
        try writePacket(stream: 0, timeBase: videoTimeBase, ptsNanos: frame.ptsNanos - origin, dtsNanos: frame.dtsNanos - origin,
                        isKey: frame.isKeyFrame, captureWallClockNanos: wallClock.wallClockNanos(forMonotonic: frame.ptsNanos))
        return sample.count
    }

    /// Muxes one AAC frame on the video's time origin; frames from before the first video frame
    /// (or with no audio track) are skipped. Returns the bytes written.
    func write(_ frame: EncodedAudioFrame) throws(RecordingError) -> Int {
        guard let audioStreamIndex, let origin = firstDtsNanos, frame.ptsNanos >= origin else { return 0 }
        sample.removeAll(keepingCapacity: true)
        sample.append(contentsOf: frame.data)
        try writePacket(stream: audioStreamIndex, timeBase: audioTimeBase, ptsNanos: frame.ptsNanos - origin,
                        dtsNanos: frame.ptsNanos - origin, isKey: true)
        return sample.count
    }

    /// Hands ``sample`` to the muxer, which copies what it keeps (the packet is not reference-counted).
    /// A capture time becomes the packet's `AV_PKT_DATA_PRFT`, which the muxer takes over with the packet
    /// and writes (in whole milliseconds) into the `prft` of the fragment the packet starts.
    private func writePacket(stream: Int32, timeBase: AVRational, ptsNanos: Int64, dtsNanos: Int64, isKey: Bool,
                             captureWallClockNanos: Int64? = nil) throws(RecordingError) {
        guard let context, let packet else { return }
        defer { av_packet_free_side_data(packet) }
        if let captureWallClockNanos {
            guard let sideData = av_packet_new_side_data(packet, AV_PKT_DATA_PRFT, MemoryLayout<AVProducerReferenceTime>.size) else {
                throw .writeFailed(path: path, reason: "out of memory")
            }
            sideData.withMemoryRebound(to: AVProducerReferenceTime.self, capacity: 1) {
                $0.pointee = AVProducerReferenceTime(wallclock: captureWallClockNanos / 1_000, flags: Self.prftFlagsTimeOfCapture)
            }
        }
        let result = sample.withUnsafeMutableBufferPointer { bytes -> Int32 in
            packet.pointee.data = bytes.baseAddress
            packet.pointee.size = Int32(bytes.count)
            packet.pointee.stream_index = stream
            packet.pointee.pts = av_rescale_q(ptsNanos, nanos, timeBase)
            packet.pointee.dts = av_rescale_q(dtsNanos, nanos, timeBase)
            packet.pointee.flags = isKey ? AV_PKT_FLAG_KEY : 0
            packet.pointee.buf = nil
            let written = lp_av_interleaved_write_frame(context, packet)
            packet.pointee.data = nil
            packet.pointee.size = 0
            return written
        }
        guard result >= 0 else { throw .writeFailed(path: path, reason: FFmpegErrorText(result)) }
    }

    /// `prft` flags 24: `ntp_timestamp` is when the sample was captured (ISO/IEC 14496-12:2022 §8.16.5).
    static let prftFlagsTimeOfCapture: Int32 = 24

    /// Writes the trailer and closes the file.
    func close() throws(RecordingError) {
        guard let context else { return }
        self.context = nil
        let trailer = lp_av_write_trailer(context)
        lp_avio_closep(&context.pointee.pb)
        lp_avformat_free_context(context)
        guard trailer >= 0 else { throw .writeFailed(path: path, reason: FFmpegErrorText(trailer)) }
    }
}

/// FFmpeg's message for an error code.
func FFmpegErrorText(_ code: Int32) -> String {
    var text = [CChar](repeating: 0, count: 256)
    av_strerror(code, &text, text.count)
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
