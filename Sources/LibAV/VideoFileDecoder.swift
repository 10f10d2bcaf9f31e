import CFFmpeg
import CFFmpegFormat
import MediaCore

/// Decodes the best video stream of any file FFmpeg can read, one frame at a time.
///
/// Used by the file source (paced playback) and by tests that read back what livepush produced.
/// Owned by one thread.
public final class VideoFileDecoder {
    /// What a decode step produced.
    public enum Output {
        /// A picture and its presentation time in nanoseconds from the start of the stream.
        case picture(I420Buffer, ptsNanos: Int64)
        /// A picture was decoded but no pooled buffer was free: the caller counts a drop.
        case noBuffer
        case endOfFile
    }

    public let path: String
    public let width: Int
    public let height: Int
    /// The stream's average frame rate (falls back to 25 when the file does not say).
    public let framesPerSecond: Double
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private let streamIndex: Int32
    private let timeBase: AVRational
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private let copier = DecodedFrameCopier()
    private var draining = false
    /// `frame` holds a decoded picture not yet taken (`av_frame_unref` clears its planes).
    private var holdsPicture: Bool { frame?.pointee.data.0 != nil }

    /// Opens `path` with only the `protocols` libavformat may use (`file`, unless a caller asks for
    /// more) and, where its extension names a container, only that container's demuxer
    /// (``InputWhitelist``): a playlist or concat file posing as a video cannot make libavformat
    /// read other files or fetch URLs.
    public init(path: String, protocols: [String] = ["file"]) throws(FFmpegError) {
        self.path = path
        if let failure = lp_avformat_open_library() {
            throw FFmpegError(operation: "open \(path)", message: String(cString: failure))
        }
        var format: UnsafeMutablePointer<AVFormatContext>?
        var options: OpaquePointer?
        av_dict_set(&options, "protocol_whitelist", protocols.joined(separator: ","), 0)
        av_dict_set(&options, "format_whitelist", InputWhitelist.formats(forPath: path), 0)
        defer { av_dict_free(&options) }
        try FFmpegError.check(lp_avformat_open_input(&format, path, nil, &options), "open \(path)")
        self.format = format
        var codec: UnsafeMutablePointer<AVCodecContext>?
        var streamIndex: Int32 = -1
        var timeBase = AVRational(num: 1, den: 1)
        var rate = AVRational(num: 0, den: 1)
        do {
            try FFmpegError.check(lp_avformat_find_stream_info(format, nil), "read stream info of \(path)")
            var decoder: UnsafePointer<AVCodec>?
            streamIndex = try FFmpegError.check(lp_av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0), "find a video stream in \(path)")
            guard let stream = format?.pointee.streams[Int(streamIndex)], let decoder else {
                throw FFmpegError(operation: "open \(path)", message: "no decodable video stream")
            }
            timeBase = stream.pointee.time_base
            rate = stream.pointee.avg_frame_rate.num > 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
            codec = avcodec_alloc_context3(decoder)
            try FFmpegError.check(avcodec_parameters_to_context(codec, stream.pointee.codecpar), "configure decoder")
            try FFmpegError.check(avcodec_open2(codec, decoder, nil), "open decoder")
        } catch let error as FFmpegError {
            avcodec_free_context(&codec)
            lp_avformat_close_input(&format)
            throw error
        } catch {
            throw FFmpegError(operation: "open \(path)", message: "\(error)")
        }
        self.codec = codec
        self.streamIndex = streamIndex
        self.timeBase = timeBase
        width = Int(codec?.pointee.width ?? 0)
        height = Int(codec?.pointee.height ?? 0)
        framesPerSecond = rate.num > 0 && rate.den > 0 ? Double(rate.num) / Double(rate.den) : 25
        packet = av_packet_alloc()
        frame = av_frame_alloc()
    }

    deinit {
        CodecObjects.free(context: codec, frame: frame, packet: packet)
        lp_avformat_close_input(&format)
    }

    /// Decodes the next picture into a buffer from `pool`.
    public func next(pool: FrameBufferPool) throws(FFmpegError) -> Output {
        guard let ptsNanos = try decodeNextPicture() else { return .endOfFile }
        guard let buffer = try takePicture(pool: pool) else { return .noBuffer }
        return .picture(buffer, ptsNanos: ptsNanos)
    }

    /// Decodes the next picture and holds it, uncopied: its presentation time in nanoseconds from
    /// the start of the stream, or nil at the end of the file. Paced playback decodes a frame ahead
    /// and copies it into a pooled buffer only when it is due (``takePicture(pool:)``), so the
    /// buffer of the frame before is back in the pool by then and one buffer serves a steady stream.
    /// A picture held from before and not taken is let go.
    public func decodeNextPicture() throws(FFmpegError) -> Int64? {
        if let frame { av_frame_unref(frame) }
        while true {
            let received = avcodec_receive_frame(codec, frame)
            if received >= 0, let frame {
                let pts = frame.pointee.best_effort_timestamp == lp_av_nopts_value() ? 0 : frame.pointee.best_effort_timestamp
                return av_rescale_q(pts, timeBase, AVRational(num: 1, den: 1_000_000_000))
            }
            if received == lp_averror_eof() { return nil }
            guard received == lp_averror_eagain() else { throw FFmpegError(operation: "decode \(path)", code: received) }
            try feedDecoder()
        }
    }

    /// Converts the picture ``decodeNextPicture()`` holds into a buffer from `pool` and lets go of
    /// it; nil when no pooled buffer was free (the caller counts a drop) or no picture is held.
    public func takePicture(pool: FrameBufferPool) throws(FFmpegError) -> I420Buffer? {
        guard holdsPicture, let frame else { return nil }
        defer { av_frame_unref(frame) }
        let buffer: I420Buffer?
        do { buffer = try pool.makeBuffer(width: Int(frame.pointee.width), height: Int(frame.pointee.height)) } catch {
            throw FFmpegError(operation: "decode \(path)", message: "\(error)")
        }
        guard let buffer else { return nil }
        try copier.copy(frame, into: buffer)
        return buffer
    }

    /// Seeks back to the start (for looping playback).
    public func rewind() throws(FFmpegError) {
        try FFmpegError.check(lp_av_seek_frame(format, streamIndex, 0, AVSEEK_FLAG_BACKWARD), "seek to start of \(path)")
        avcodec_flush_buffers(codec)
        if let frame { av_frame_unref(frame) }
        draining = false
    }

    /// Sends the next packet of our stream to the decoder, or the end-of-stream flush.
    private func feedDecoder() throws(FFmpegError) {
        guard !draining else { return }
        while true {
            let read = lp_av_read_frame(format, packet)
            if read < 0 {
                guard read == lp_averror_eof() else { throw FFmpegError(operation: "read \(path)", code: read) }
                draining = true
                try FFmpegError.check(avcodec_send_packet(codec, nil), "flush decoder")
                return
            }
            defer { av_packet_unref(packet) }
            guard packet?.pointee.stream_index == streamIndex else { continue }
            let sent = avcodec_send_packet(codec, packet)
            guard sent >= 0 || sent == lp_averror_invaliddata() else { throw FFmpegError(operation: "decode \(path)", code: sent) }
            return
        }
    }
}
