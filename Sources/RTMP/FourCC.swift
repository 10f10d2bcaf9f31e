/// A four-character codec code as enhanced RTMP uses it (`VideoFourCc`, big-endian on the wire).
public struct FourCC: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// `nil` unless `string` is exactly four ASCII characters.
    public init?(_ string: String) {
        let bytes = Array(string.utf8)
        guard bytes.count == 4, bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        rawValue = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    public static let avc1 = Self(rawValue: 0x6176_6331)
    public static let hvc1 = Self(rawValue: 0x6876_6331)
    public static let av01 = Self(rawValue: 0x6176_3031)
    public static let vp09 = Self(rawValue: 0x7670_3039)

    public var description: String {
        let bytes = (0..<4).map { UInt8(truncatingIfNeeded: rawValue >> (24 - 8 * $0)) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
