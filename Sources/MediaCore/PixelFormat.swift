/// Pixel layouts that sources hand to the media core, named by their memory byte order
/// (as V4L2 and FFmpeg name them, not libyuv's word-order names).
public enum PixelFormat: String, Sendable, CaseIterable, Codable, CustomStringConvertible {
    /// Planar 4:2:0: the frame format of the whole pipeline.
    case i420
    /// Packed 4:2:2, bytes Y0 U Y1 V (V4L2 `YUYV`, libyuv `YUY2`): most USB webcams' raw format.
    case yuyv
    /// Packed 4:2:2, bytes U Y0 V Y1.
    case uyvy
    /// Y plane then interleaved U/V plane (Raspberry Pi cameras, hardware decoders).
    case nv12
    /// Y plane then interleaved V/U plane (Android-style).
    case nv21
    /// Packed 8-bit R, G, B.
    case rgb24
    /// Packed 8-bit B, G, R, A (libyuv calls this ARGB: little-endian 32-bit words).
    case bgra
    /// Packed 8-bit A, R, G, B (libyuv calls this BGRA).
    case argb
    /// Motion JPEG: one JPEG image per frame, the compressed format of USB webcams.
    case mjpeg

    public var description: String { rawValue }

    /// Whether the format packs two horizontal pixels together, so width must be even.
    public var needsEvenWidth: Bool { self == .yuyv || self == .uyvy }

    /// Whether the format's rows pair up (none of the supported packed formats do).
    public var needsEvenHeight: Bool { false }

    /// Bytes per pixel of the first plane's row, for row-size checks; nil for compressed formats.
    public var firstPlaneBytesPerPixel: Int? {
        switch self {
        case .i420, .nv12, .nv21: return 1
        case .yuyv, .uyvy: return 2
        case .rgb24: return 3
        case .bgra, .argb: return 4
        case .mjpeg: return nil
        }
    }
}
