import CFFmpeg
import CYUV
import Foundation
import MediaCore

/// Writes one picture as a JPEG or PNG file (the "save a frame" button, `livepush snapshot`,
/// and the HTTP API's snapshot endpoint).
public enum ImageFileWriter {
    public enum ImageFormat: String, Sendable {
        case jpeg, png

        /// Picks the format from a file name's extension (.jpg, .jpeg, .png).
        public init(forPath path: String) throws(FFmpegError) {
            switch URL(fileURLWithPath: path).pathExtension.lowercased() {
            case "jpg", "jpeg": self = .jpeg
            case "png": self = .png
            default: throw FFmpegError(operation: "snapshot \(path)", message: "unknown image type: name the file .jpg, .jpeg or .png")
            }
        }
    }

    /// Encodes the picture (JPEG quality ≈ 90) and returns the file bytes.
    public static func encode(_ buffer: I420Buffer, as format: ImageFormat) throws(FFmpegError) -> [UInt8] {
        let codecID = format == .jpeg ? AV_CODEC_ID_MJPEG : AV_CODEC_ID_PNG
        guard let codec = avcodec_find_encoder(codecID) else {
            throw FFmpegError(operation: "snapshot", message: "FFmpeg has no \(format) encoder: install a full libavcodec")
        }
        let context = avcodec_alloc_context3(codec), frame = av_frame_alloc(), packet = av_packet_alloc()
        defer { CodecObjects.free(context: context, frame: frame, packet: packet) }
        guard let context, let frame, let packet else { throw FFmpegError(operation: "snapshot", code: lp_averror(ENOMEM)) }
        context.pointee.width = Int32(buffer.width)
        context.pointee.height = Int32(buffer.height)
        context.pointee.time_base = AVRational(num: 1, den: 25)
        frame.pointee.width = Int32(buffer.width)
        frame.pointee.height = Int32(buffer.height)
        var rgb: [UInt8] = []
        switch format {
        case .jpeg:
            // Limited-range 4:2:0 straight from the pipeline; FFmpeg tags it as such.
            context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            context.pointee.color_range = AVCOL_RANGE_MPEG
            context.pointee.strict_std_compliance = FF_COMPLIANCE_UNOFFICIAL
            context.pointee.flags |= AV_CODEC_FLAG_QSCALE
            context.pointee.global_quality = Int32(FF_QP2LAMBDA) * 3
            frame.pointee.quality = context.pointee.global_quality
            frame.pointee.format = AV_PIX_FMT_YUV420P.rawValue
            frame.pointee.data.0 = buffer.dataY
            frame.pointee.data.1 = buffer.dataU
            frame.pointee.data.2 = buffer.dataV
            frame.pointee.linesize.0 = Int32(buffer.strideY)
            frame.pointee.linesize.1 = Int32(buffer.strideU)
            frame.pointee.linesize.2 = Int32(buffer.strideV)
        case .png:
            context.pointee.pix_fmt = AV_PIX_FMT_RGB24
            frame.pointee.format = AV_PIX_FMT_RGB24.rawValue
            rgb = [UInt8](repeating: 0, count: buffer.width * buffer.height * 3)
            I420ToRAW(buffer.dataY, Int32(buffer.strideY), buffer.dataU, Int32(buffer.strideU), buffer.dataV, Int32(buffer.strideV),
                      &rgb, Int32(buffer.width * 3), Int32(buffer.width), Int32(buffer.height))
            frame.pointee.linesize.0 = Int32(buffer.width * 3)
        }
        try FFmpegError.check(avcodec_open2(context, codec, nil), "open \(format) encoder")
        return try rgb.withUnsafeMutableBufferPointer { (pixels) throws(FFmpegError) -> [UInt8] in
            if format == .png { frame.pointee.data.0 = pixels.baseAddress }
            try FFmpegError.check(avcodec_send_frame(context, frame), "encode \(format)")
            try FFmpegError.check(avcodec_send_frame(context, nil), "flush \(format)")
            try FFmpegError.check(avcodec_receive_packet(context, packet), "encode \(format)")
            defer { av_packet_unref(packet) }
            return Array(UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
        }
    }

    /// Writes the picture to `path`, choosing JPEG or PNG by its extension.
    public static func write(_ buffer: I420Buffer, to path: String) throws(FFmpegError) {
        let bytes = try encode(buffer, as: ImageFormat(forPath: path))
        do { try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw FFmpegError(operation: "write \(path)", message: error.localizedDescription)
        }
    }
}
