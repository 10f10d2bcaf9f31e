/// A picture in some source format, borrowed from a device buffer, a file decoder or a test.
///
/// It only describes memory it does not own; ``validate()`` checks that the described picture
/// really fits in the bytes, so a short read from a camera can never make libyuv read out of bounds.
public struct RawPicture {
    public var bytes: UnsafeRawBufferPointer
    public var format: PixelFormat
    public var width: Int
    public var height: Int
    /// Bytes per row of the first plane (V4L2's `bytesperline`); for NV12/NV21 the chroma plane
    /// uses the same stride, for I420 half of it. Ignored for MJPEG.
    public var bytesPerLine: Int

    /// Describes `bytes`; `bytesPerLine` defaults to the tightly packed row size.
    public init(bytes: UnsafeRawBufferPointer, format: PixelFormat, width: Int, height: Int, bytesPerLine: Int? = nil) {
        self.bytes = bytes
        self.format = format
        self.width = width
        self.height = height
        self.bytesPerLine = bytesPerLine ?? width * (format.firstPlaneBytesPerPixel ?? 0)
    }

    /// Bytes the tightly packed picture occupies (for allocating test and file buffers).
    public static func packedSize(format: PixelFormat, width: Int, height: Int) -> Int {
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        switch format {
        case .i420: return width * height + 2 * chroma
        case .nv12, .nv21: return width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
        case .yuyv, .uyvy: return width * height * 2
        case .rgb24: return width * height * 3
        case .bgra, .argb: return width * height * 4
        case .mjpeg: return 0
        }
    }

    /// Chroma plane stride implied by ``bytesPerLine``.
    var chromaBytesPerLine: Int {
        switch format {
        case .i420: return (bytesPerLine + 1) / 2
        case .nv12, .nv21: return bytesPerLine
        default: return 0
        }
    }

    /// Throws if the size is out of range, odd where the format pairs pixels, the stride is
    /// shorter than a row, or the bytes end before the last row does.
    public func validate() throws(MediaError) {
        try I420Buffer.validate(width: width, height: height)
        if format.needsEvenWidth && width % 2 != 0 || format.needsEvenHeight && height % 2 != 0 {
            throw .oddDimensions(format: format, width: width, height: height)
        }
        guard let bytesPerPixel = format.firstPlaneBytesPerPixel else {
            guard !bytes.isEmpty else { throw .corruptJPEG(bytes: 0) }
            return
        }
        let rowBytes = format == .yuyv || format == .uyvy ? width * 2 : width * bytesPerPixel
        guard bytesPerLine >= rowBytes else {
            throw .strideTooSmall(plane: "\(format) row", stride: bytesPerLine, minimum: rowBytes)
        }
        var needed = bytesPerLine * height
        let chromaRows = (height + 1) / 2
        switch format {
        case .i420: needed += 2 * chromaBytesPerLine * chromaRows
        case .nv12, .nv21: needed += chromaBytesPerLine * chromaRows
        default: break
        }
        guard bytes.count >= needed else {
            throw .bufferTooSmall(format: format, needed: needed, available: bytes.count)
        }
    }
}
