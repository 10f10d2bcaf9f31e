import CFFmpeg
import LibAV
import MediaCore

/// Decodes encoded access units back to pictures with libavcodec: the check in tests and the bench
/// that what the encoder made is what was captured (size, PSNR, burned-in frame codes).
public final class VideoDecoder {
    /// One decoded picture with the timestamp its access unit carried.
    public struct Picture {
        public var buffer: I420Buffer
        public var ptsNanos: Int64
        public var isKeyFrame: Bool
    }

    private let context: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    private let copier = DecodedFrameCopier()

    public init(codec: VideoCodec) throws(CodecError) {
        let id: AVCodecID = switch codec {
        case .h264: AV_CODEC_ID_H264
        case .hevc: AV_CODEC_ID_HEVC
        case .av1: AV_CODEC_ID_AV1
        }
        guard let decoder = avcodec_find_decoder(id), let context = avcodec_alloc_context3(decoder),
              let packet = av_packet_alloc(), let frame = av_frame_alloc() else {
            throw .ffmpeg(FFmpegError(operation: "open \(codec) decoder", message: "libavcodec has no \(codec) decoder"))
        }
        context.pointee.time_base = EncoderContext.timeBase
        context.pointee.pkt_timebase = EncoderContext.timeBase
        let result = avcodec_open2(context, decoder, nil)
        guard result >= 0 else { throw .ffmpeg(FFmpegError(operation: "avcodec_open2(decoder)", code: result)) }
        self.context = context
        self.packet = packet
        self.frame = frame
    }

    deinit { CodecObjects.free(context: context, frame: frame, packet: packet) }

    /// Decodes one access unit; returns the pictures it completes.
    public func decode(_ encoded: EncodedVideoFrame) throws(CodecError) -> [Picture] {
        let result = encoded.data.withUnsafeBufferPointer { bytes -> Int32 in
            packet.pointee.data = UnsafeMutablePointer(mutating: bytes.baseAddress)
            packet.pointee.size = Int32(bytes.count)
            packet.pointee.pts = encoded.ptsNanos
            packet.pointee.dts = encoded.dtsNanos
            defer { packet.pointee.data = nil; packet.pointee.size = 0 }
            return avcodec_send_packet(context, packet)
        }
        guard result >= 0 else { throw .ffmpeg(FFmpegError(operation: "avcodec_send_packet", code: result)) }
        return try receive()
    }

    /// Returns the pictures the decoder still holds at the end of the stream.
    public func flush() throws(CodecError) -> [Picture] {
        _ = avcodec_send_packet(context, nil)
        return try receive()
    }

    private func receive() throws(CodecError) -> [Picture] {
        var pictures = [Picture]()
        while true {
            let result = avcodec_receive_frame(context, frame)
            if result == lp_averror_eagain() || result == lp_averror_eof() { return pictures }
            guard result >= 0 else { throw .ffmpeg(FFmpegError(operation: "avcodec_receive_frame", code: result)) }
            defer { av_frame_unref(frame) }
            let buffer: I420Buffer
            do throws(MediaError) {
                buffer = try I420Buffer(width: Int(frame.pointee.width), height: Int(frame.pointee.height))
            } catch { throw .media(error) }
            do throws(FFmpegError) { try copier.copy(frame, into: buffer) } catch { throw .ffmpeg(error) }
            pictures.append(Picture(buffer: buffer, ptsNanos: frame.pointee.best_effort_timestamp,
                                    isKeyFrame: lp_frame_is_key(frame) != 0))
        }
    }
}
