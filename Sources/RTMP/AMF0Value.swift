/// An AMF0 value (Action Message Format 0, Adobe AMF0 spec, 2006).
///
/// RTMP commands, their answers and `@setDataFrame` metadata are sequences of these.
/// A typed enum rather than `Any?` makes every decode explicit and every mismatch a compile error.
public enum AMF0Value: Sendable, Hashable {
    /// §2.2: IEEE 754 double, big-endian.
    case number(Double)
    /// §2.3: one byte, non-zero is true.
    case boolean(Bool)
    /// §2.4: UTF-8 with a 16-bit length.
    case string(String)
    /// §2.5: anonymous object, properties in wire order.
    case object(AMF0Object)
    /// §2.7
    case null
    /// §2.8
    case undefined
    /// §2.10: associative array; the 32-bit count is advisory and recomputed on encode.
    case ecmaArray(AMF0Object)
    /// §2.12: dense array with a 32-bit count.
    case strictArray([AMF0Value])
    /// §2.13: milliseconds since 1970-01-01 UTC; the time-zone field is reserved and should be 0.
    case date(millisecondsSince1970: Double, timeZone: Int16)
    /// §2.14: UTF-8 with a 32-bit length.
    case longString(String)

    /// Type markers (AMF0 spec §2.1).
    enum Marker {
        static let number: UInt8 = 0x00
        static let boolean: UInt8 = 0x01
        static let string: UInt8 = 0x02
        static let object: UInt8 = 0x03
        static let movieClip: UInt8 = 0x04
        static let null: UInt8 = 0x05
        static let undefined: UInt8 = 0x06
        static let reference: UInt8 = 0x07
        static let ecmaArray: UInt8 = 0x08
        static let objectEnd: UInt8 = 0x09
        static let strictArray: UInt8 = 0x0A
        static let date: UInt8 = 0x0B
        static let longString: UInt8 = 0x0C
        static let unsupported: UInt8 = 0x0D
        static let recordSet: UInt8 = 0x0E
        static let xmlDocument: UInt8 = 0x0F
        static let typedObject: UInt8 = 0x10
        static let avmPlusObject: UInt8 = 0x11
    }

    /// Nesting deeper than this is rejected: real RTMP traffic nests two or three levels,
    /// and recursion on attacker-chosen depth would exhaust the stack.
    public static let maximumNestingDepth = 32

    /// Strings longer than this cannot use the 16-bit length of `string` and are encoded as `longString`.
    static let maximumShortStringLength = Int(UInt16.max)
}

extension AMF0Value {
    /// The string, for either string form.
    public var stringValue: String? {
        switch self {
        case .string(let value), .longString(let value): return value
        default: return nil
        }
    }

    /// The number, if this is one.
    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The properties of an object or ECMA array.
    public var objectValue: AMF0Object? {
        switch self {
        case .object(let value), .ecmaArray(let value): return value
        default: return nil
        }
    }
}
