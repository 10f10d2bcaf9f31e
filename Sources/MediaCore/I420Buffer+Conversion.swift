import CYUV

extension I420Buffer {
    /// Converts a source picture into this buffer with libyuv (SIMD row functions; no pixel loops here).
    ///
    /// The buffer must have the picture's size: scaling is a separate, explicit step
    /// (``scaled(into:)``), so a size mismatch is a bug to report, not something to hide.
    /// Corrupt MJPEG throws ``MediaError/corruptJPEG(bytes:)`` so the caller can drop and count it.
    public func convert(from picture: RawPicture) throws(MediaError) {
        try picture.validate()
        guard picture.width == width, picture.height == height else {
            throw .sizeMismatch(expectedWidth: picture.width, expectedHeight: picture.height, width: width, height: height)
        }
        guard let base = picture.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            throw .bufferTooSmall(format: picture.format, needed: 1, available: 0)
        }
        let stride = Int32(picture.bytesPerLine)
        let w = Int32(width), h = Int32(height)
        let (y, sy, u, su, v, sv) = (dataY, Int32(strideY), dataU, Int32(strideU), dataV, Int32(strideV))
        let result: Int32
        switch picture.format {
        case .i420:
            let chromaStride = Int32(picture.chromaBytesPerLine)
            let srcU = base + picture.bytesPerLine * height
            let srcV = srcU + picture.chromaBytesPerLine * chromaHeight
            result = I420Copy(base, stride, srcU, chromaStride, srcV, chromaStride, y, sy, u, su, v, sv, w, h)
        case .yuyv:
            result = YUY2ToI420(base, stride, y, sy, u, su, v, sv, w, h)
        case .uyvy:
            result = UYVYToI420(base, stride, y, sy, u, su, v, sv, w, h)
        case .nv12:
            result = NV12ToI420(base, stride, base + picture.bytesPerLine * height, stride, y, sy, u, su, v, sv, w, h)
        case .nv21:
            result = NV21ToI420(base, stride, base + picture.bytesPerLine * height, stride, y, sy, u, su, v, sv, w, h)
        case .rgb24:
            result = RAWToI420(base, stride, y, sy, u, su, v, sv, w, h)
        case .bgra:
            result = ARGBToI420(base, stride, y, sy, u, su, v, sv, w, h)
        case .argb:
            result = BGRAToI420(base, stride, y, sy, u, su, v, sv, w, h)
        case .mjpeg:
            var jpegWidth: Int32 = 0, jpegHeight: Int32 = 0
            guard MJPGSize(base, picture.bytes.count, &jpegWidth, &jpegHeight) == 0,
                  jpegWidth == w, jpegHeight == h else {
                throw .corruptJPEG(bytes: picture.bytes.count)
            }
            guard MJPGToI420(base, picture.bytes.count, y, sy, u, su, v, sv, w, h, w, h) == 0 else {
                throw .corruptJPEG(bytes: picture.bytes.count)
            }
            return
        }
        guard result == 0 else { throw .conversionFailed(operation: "\(picture.format)→I420", code: result) }
    }
}
