/// How one frame of `rpicam-vid --codec yuv420` lies in its output.
///
/// With that codec rpicam-apps' NullEncoder writes each buffer libcamera filled, whole: the Y plane
/// then U then V, each row as wide as the stream's stride. The Raspberry Pi ISP pads the luma
/// stride to a multiple of 64 bytes, and each chroma plane's stride is half of it, so a
/// 1000-pixel-wide stream has 1024-byte Y rows and 512-byte U and V rows; a width that is a
/// multiple of 64 has no padding. Frames follow each other with no header.
public struct RpicamFrameLayout: Sendable, Equatable {
    public static let strideAlignment = 64

    public let width: Int
    public let height: Int
    public let lumaStride: Int
    public var chromaStride: Int { lumaStride / 2 }
    public var chromaHeight: Int { (height + 1) / 2 }
    /// Bytes of one frame on the pipe.
    public var frameBytes: Int { lumaStride * height + 2 * chromaStride * chromaHeight }

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        lumaStride = (width + Self.strideAlignment - 1) / Self.strideAlignment * Self.strideAlignment
    }
}
