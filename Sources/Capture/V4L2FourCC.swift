import MediaCore

/// A V4L2 pixel format code (`v4l2_fourcc('Y','U','Y','V')`), kept as the four characters users
/// see in `v4l2-ctl --list-formats` and mapped to the ``PixelFormat`` livepush converts from.
public struct V4L2FourCC: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Builds the code from up to four ASCII characters, as the `v4l2_fourcc` macro does.
    public init(_ text: StaticString) {
        var value: UInt32 = 0
        text.withUTF8Buffer { bytes in
            for (index, byte) in bytes.prefix(4).enumerated() { value |= UInt32(byte) << UInt32(8 * index) }
        }
        rawValue = value
    }

    public static let yuyv = V4L2FourCC("YUYV")
    public static let uyvy = V4L2FourCC("UYVY")
    public static let nv12 = V4L2FourCC("NV12")
    public static let nv21 = V4L2FourCC("NV21")
    public static let yu12 = V4L2FourCC("YU12")
    public static let rgb24 = V4L2FourCC("RGB3")
    public static let mjpeg = V4L2FourCC("MJPG")
    public static let jpeg = V4L2FourCC("JPEG")

    /// The format livepush converts from, or nil when it cannot use this one.
    public var pixelFormat: PixelFormat? {
        switch self {
        case .yuyv: return .yuyv
        case .uyvy: return .uyvy
        case .nv12: return .nv12
        case .nv21: return .nv21
        case .yu12: return .i420
        case .rgb24: return .rgb24
        case .mjpeg, .jpeg: return .mjpeg
        default: return nil
        }
    }

    /// The V4L2 code that carries a ``PixelFormat`` (MJPEG as `MJPG`).
    public init?(_ format: PixelFormat) {
        switch format {
        case .yuyv: self = .yuyv
        case .uyvy: self = .uyvy
        case .nv12: self = .nv12
        case .nv21: self = .nv21
        case .i420: self = .yu12
        case .rgb24: self = .rgb24
        case .mjpeg: self = .mjpeg
        case .bgra, .argb: return nil
        }
    }

    /// The four characters, trailing spaces kept (`"MJPG"`, `"Y10 "`).
    public var description: String {
        String(decoding: (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> UInt32(8 * $0)) }, as: UTF8.self)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        rawValue = text.utf8.prefix(4).enumerated().reduce(0) { $0 | UInt32($1.element) << UInt32(8 * $1.offset) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
