import CYUV

/// Physical picture transforms, all through libyuv.
///
/// Each writes into a destination buffer the caller provides (usually from a ``FrameBufferPool``),
/// so transforms on the frame path allocate nothing.
extension I420Buffer {
    /// Turns the picture clockwise into `destination`, whose size must be the turned size.
    public func rotate(by rotation: VideoRotation, into destination: I420Buffer) throws(MediaError) {
        let (w, h) = rotation.swapsDimensions ? (height, width) : (width, height)
        try destination.expectSize(width: w, height: h)
        let mode: RotationMode
        switch rotation {
        case .none: mode = kRotate0
        case .clockwise90: mode = kRotate90
        case .clockwise180: mode = kRotate180
        case .clockwise270: mode = kRotate270
        }
        let result = I420Rotate(dataY, Int32(strideY), dataU, Int32(strideU), dataV, Int32(strideV),
                                destination.dataY, Int32(destination.strideY), destination.dataU, Int32(destination.strideU),
                                destination.dataV, Int32(destination.strideV), Int32(width), Int32(height), mode)
        guard result == 0 else { throw .conversionFailed(operation: "I420Rotate", code: result) }
    }

    /// Mirrors left↔right (a front camera's selfie view) into `destination` of the same size.
    public func mirror(into destination: I420Buffer) throws(MediaError) {
        try destination.expectSize(width: width, height: height)
        let result = I420Mirror(dataY, Int32(strideY), dataU, Int32(strideU), dataV, Int32(strideV),
                                destination.dataY, Int32(destination.strideY), destination.dataU, Int32(destination.strideU),
                                destination.dataV, Int32(destination.strideV), Int32(width), Int32(height))
        guard result == 0 else { throw .conversionFailed(operation: "I420Mirror", code: result) }
    }

    /// Scales the whole picture to `destination`'s size with a box filter (good for down-scaling).
    public func scale(into destination: I420Buffer) throws(MediaError) {
        let result = I420Scale(dataY, Int32(strideY), dataU, Int32(strideU), dataV, Int32(strideV),
                               Int32(width), Int32(height),
                               destination.dataY, Int32(destination.strideY), destination.dataU, Int32(destination.strideU),
                               destination.dataV, Int32(destination.strideV),
                               Int32(destination.width), Int32(destination.height), kFilterBox)
        guard result == 0 else { throw .conversionFailed(operation: "I420Scale", code: result) }
    }

    /// Copies the rectangle at (`x`, `y`) of `destination`'s size into it.
    /// Offsets must be even so chroma samples stay aligned with luma.
    public func crop(x: Int, y: Int, into destination: I420Buffer) throws(MediaError) {
        let w = destination.width, h = destination.height
        guard x >= 0, y >= 0, x % 2 == 0, y % 2 == 0, x + w <= width, y + h <= height else {
            throw .invalidCrop(x: x, y: y, width: w, height: h, sourceWidth: width, sourceHeight: height)
        }
        let result = I420Copy(dataY + y * strideY + x, Int32(strideY),
                              dataU + (y / 2) * strideU + x / 2, Int32(strideU),
                              dataV + (y / 2) * strideV + x / 2, Int32(strideV),
                              destination.dataY, Int32(destination.strideY), destination.dataU, Int32(destination.strideU),
                              destination.dataV, Int32(destination.strideV), Int32(w), Int32(h))
        guard result == 0 else { throw .conversionFailed(operation: "I420Copy", code: result) }
    }

    /// Peak signal-to-noise ratio against another picture of the same size, in dB (libyuv's I420Psnr;
    /// 128 dB for identical pictures). Used by tests and the bench to judge conversions and encodes.
    public func psnr(against other: I420Buffer) throws(MediaError) -> Double {
        try other.expectSize(width: width, height: height)
        return I420Psnr(dataY, Int32(strideY), dataU, Int32(strideU), dataV, Int32(strideV),
                        other.dataY, Int32(other.strideY), other.dataU, Int32(other.strideU),
                        other.dataV, Int32(other.strideV), Int32(width), Int32(height))
    }

    func expectSize(width expectedWidth: Int, height expectedHeight: Int) throws(MediaError) {
        guard width == expectedWidth, height == expectedHeight else {
            throw .sizeMismatch(expectedWidth: expectedWidth, expectedHeight: expectedHeight, width: width, height: height)
        }
    }
}
