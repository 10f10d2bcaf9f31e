import CFFmpeg
import CYUV
import MediaCore

/// Copies a decoded `AVFrame` of any pixel format into an ``I420Buffer``.
///
/// 4:2:0 planar frames (what nearly every H.264/HEVC/AV1 file decodes to) go through libyuv's
/// I420Copy, and the packed formats a raw camera file holds (YUYV, UYVY, RGB, BGRA, ARGB) through
/// the same libyuv conversions a V4L2 camera's buffers take; anything else goes through libswscale,
/// kept for formats libyuv has no path for. Owned by one decoding thread (it caches a swscale context).
public final class DecodedFrameCopier {
    private var scaler: OpaquePointer?

    public init() {}
    deinit { sws_freeContext(scaler) }

    public func copy(_ frame: UnsafePointer<AVFrame>, into buffer: I420Buffer) throws(FFmpegError) {
        let format = AVPixelFormat(rawValue: frame.pointee.format)
        guard Int(frame.pointee.width) == buffer.width, Int(frame.pointee.height) == buffer.height else {
            throw FFmpegError(operation: "copy decoded frame",
                              message: "frame is \(frame.pointee.width)x\(frame.pointee.height), buffer \(buffer.width)x\(buffer.height)")
        }
        let data = frame.pointee.data, lines = frame.pointee.linesize
        if format == AV_PIX_FMT_YUV420P || format == AV_PIX_FMT_YUVJ420P,
           let y = data.0, let u = data.1, let v = data.2 {
            I420Copy(y, lines.0, u, lines.1, v, lines.2,
                     buffer.dataY, Int32(buffer.strideY), buffer.dataU, Int32(buffer.strideU), buffer.dataV, Int32(buffer.strideV),
                     Int32(buffer.width), Int32(buffer.height))
            return
        }
        if let packed = Self.packedFormat(format), let bytes = data.0, lines.0 > 0 {
            let picture = RawPicture(bytes: UnsafeRawBufferPointer(start: bytes, count: Int(lines.0) * buffer.height),
                                     format: packed, width: buffer.width, height: buffer.height, bytesPerLine: Int(lines.0))
            do {
                try buffer.convert(from: picture)
            } catch {
                throw FFmpegError(operation: "copy decoded frame", message: "\(packed) → I420: \(error)")
            }
            return
        }
        scaler = sws_getCachedContext(scaler, frame.pointee.width, frame.pointee.height, format,
                                      Int32(buffer.width), Int32(buffer.height), AV_PIX_FMT_YUV420P, SWS_BILINEAR, nil, nil, nil)
        guard let scaler else {
            throw FFmpegError(operation: "sws_getCachedContext", message: "no conversion from pixel format \(format.rawValue) to yuv420p")
        }
        var source: [UnsafePointer<UInt8>?] = [data.0, data.1, data.2, data.3].map { $0.map { UnsafePointer($0) } }
        var sourceLines: [Int32] = [lines.0, lines.1, lines.2, lines.3]
        var destination: [UnsafeMutablePointer<UInt8>?] = [buffer.dataY, buffer.dataU, buffer.dataV, nil]
        var destinationLines: [Int32] = [Int32(buffer.strideY), Int32(buffer.strideU), Int32(buffer.strideV), 0]
        try FFmpegError.check(sws_scale(scaler, &source, &sourceLines, 0, frame.pointee.height, &destination, &destinationLines), "sws_scale")
    }

    /// The single-plane packed layouts that ``I420Buffer/convert(from:)`` takes with libyuv, by
    /// FFmpeg's name (both name them by memory byte order).
    static func packedFormat(_ format: AVPixelFormat) -> PixelFormat? {
        switch format {
        case AV_PIX_FMT_YUYV422: return .yuyv
        case AV_PIX_FMT_UYVY422: return .uyvy
        case AV_PIX_FMT_RGB24: return .rgb24
        case AV_PIX_FMT_BGRA: return .bgra
        case AV_PIX_FMT_ARGB: return .argb
        default: return nil
        }
    }
}
