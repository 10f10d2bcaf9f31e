import CFFmpeg
import CFFmpegFormat

/// Plays a live stream back from a media server with libavformat and hands out its video packets
/// undecoded, for `livepush probe`. Only what a probe needs is allowed, whatever the URL says:
/// RTMP play (`rtmp`, `rtmps` and the `tcp`/`tls` under them) with the FLV demuxer, and an SRT
/// caller with the MPEG-TS demuxer. Owned by one thread.
public final class LiveStreamReader {
    /// The URL schemes a probe may play.
    public static let schemes = ["rtmp", "rtmps", "srt"]
    static let protocols = "rtmp,rtmps,tcp,tls,srt"
    static let formats = "flv,mpegts"

    public let url: String
    /// libavcodec's name of the video codec (`h264`, `hevc`).
    public let codecName: String
    /// The video stream's decoder configuration (`avcC`/`hvcC` from FLV, often empty from MPEG-TS).
    public let extradata: [UInt8]
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private let streamIndex: Int32
    private var packet: UnsafeMutablePointer<AVPacket>?

    /// Connects and reads until the video stream is known. `timeoutSeconds` bounds each network
    /// read (libavformat's `rw_timeout`), so a server that never sends fails instead of hanging.
    public init(url: String, timeoutSeconds: Double) throws(FFmpegError) {
        self.url = url
        guard let scheme = url.split(separator: ":", maxSplits: 1).first.map({ $0.lowercased() }), Self.schemes.contains(scheme) else {
            throw FFmpegError(operation: "play \(url)", message: "only rtmp://, rtmps:// and srt:// URLs can be probed")
        }
        if let failure = lp_avformat_open_library() {
            throw FFmpegError(operation: "play \(url)", message: String(cString: failure))
        }
        var format: UnsafeMutablePointer<AVFormatContext>?
        var options: OpaquePointer?
        av_dict_set(&options, "protocol_whitelist", Self.protocols, 0)
        av_dict_set(&options, "format_whitelist", Self.formats, 0)
        av_dict_set(&options, "rw_timeout", "\(Int64(timeoutSeconds * 1_000_000))", 0)
        // Find the video stream within a second, and drop what was read to find it rather than
        // hand it out late: a probe measures when packets arrive.
        av_dict_set(&options, "analyzeduration", "1000000", 0)
        av_dict_set(&options, "fflags", "nobuffer", 0)
        if scheme == "srt" { av_dict_set(&options, "mode", "caller", 0) }
        defer { av_dict_free(&options) }
        try FFmpegError.check(lp_avformat_open_input(&format, url, nil, &options), "play \(url)")
        do {
            try FFmpegError.check(lp_avformat_find_stream_info(format, nil), "read stream info of \(url)")
            streamIndex = try FFmpegError.check(lp_av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0), "find a video stream in \(url)")
        } catch {
            lp_avformat_close_input(&format)
            throw error
        }
        let parameters = format!.pointee.streams[Int(streamIndex)]!.pointee.codecpar!.pointee
        codecName = String(cString: avcodec_get_name(parameters.codec_id))
        extradata = parameters.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(parameters.extradata_size))) } ?? []
        self.format = format
        packet = av_packet_alloc()
    }

    deinit {
        av_packet_free(&packet)
        lp_avformat_close_input(&format)
    }

    /// Reads up to the next video packet and calls `body` with its bytes; returns false at the end
    /// of the stream. The bytes are valid only during the call.
    public func nextVideoPacket(_ body: (UnsafeRawBufferPointer) -> Void) throws(FFmpegError) -> Bool {
        while true {
            let read = lp_av_read_frame(format, packet)
            if read == lp_averror_eof() { return false }
            try FFmpegError.check(read, "read \(url)")
            defer { av_packet_unref(packet) }
            guard let packet, packet.pointee.stream_index == streamIndex else { continue }
            body(UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
            return true
        }
    }
}
