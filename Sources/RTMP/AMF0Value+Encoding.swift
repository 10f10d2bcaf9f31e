import NIOCore

extension AMF0Value {
    /// Bytes `write(to:)` produces, so callers can reserve capacity once.
    public var encodedSize: Int {
        switch self {
        case .number: return 9
        case .boolean: return 2
        case .null, .undefined: return 1
        case .date: return 11
        case .string(let value), .longString(let value):
            let length = value.utf8.count
            return length <= Self.maximumShortStringLength && !isLongString ? 3 + length : 5 + length
        case .object(let object):
            return 1 + Self.propertiesSize(object)
        case .ecmaArray(let object):
            return 5 + Self.propertiesSize(object)
        case .strictArray(let elements):
            return elements.reduce(5) { $0 + $1.encodedSize }
        }
    }

    /// Appends the AMF0 encoding. A `.string` longer than 65535 UTF-8 bytes is written as a long string
    /// (AMF0 spec §2.14), the only encoding that can carry it.
    public func write(to buffer: inout ByteBuffer) {
        switch self {
        case .number(let value):
            buffer.writeInteger(Marker.number)
            buffer.writeInteger(value.bitPattern)
        case .boolean(let value):
            buffer.writeInteger(Marker.boolean)
            buffer.writeInteger(UInt8(value ? 1 : 0))
        case .string(let value), .longString(let value):
            let length = value.utf8.count
            if length <= Self.maximumShortStringLength && !isLongString {
                buffer.writeInteger(Marker.string)
                buffer.writeInteger(UInt16(length))
            } else {
                buffer.writeInteger(Marker.longString)
                buffer.writeInteger(UInt32(truncatingIfNeeded: length))
            }
            buffer.writeString(value)
        case .object(let object):
            buffer.writeInteger(Marker.object)
            Self.writeProperties(object, to: &buffer)
        case .ecmaArray(let object):
            buffer.writeInteger(Marker.ecmaArray)
            buffer.writeInteger(UInt32(truncatingIfNeeded: object.properties.count))
            Self.writeProperties(object, to: &buffer)
        case .strictArray(let elements):
            buffer.writeInteger(Marker.strictArray)
            buffer.writeInteger(UInt32(truncatingIfNeeded: elements.count))
            for element in elements {
                element.write(to: &buffer)
            }
        case .date(let milliseconds, let timeZone):
            buffer.writeInteger(Marker.date)
            buffer.writeInteger(milliseconds.bitPattern)
            buffer.writeInteger(timeZone)
        case .null:
            buffer.writeInteger(Marker.null)
        case .undefined:
            buffer.writeInteger(Marker.undefined)
        }
    }

    /// Writes a sequence of values back to back, as command and data messages carry them.
    public static func write(_ values: [AMF0Value], to buffer: inout ByteBuffer) {
        for value in values {
            value.write(to: &buffer)
        }
    }

    private var isLongString: Bool {
        if case .longString = self { return true }
        return false
    }

    /// Property names have a 16-bit length and no long form; longer names are cut to 65535 bytes.
    /// Names are chosen by this program, never by users, so this never happens in practice.
    private static func keyBytes(_ key: String) -> Substring.UTF8View {
        Substring(key).utf8.prefix(maximumShortStringLength)
    }

    private static func propertiesSize(_ object: AMF0Object) -> Int {
        object.properties.reduce(3) { $0 + 2 + keyBytes($1.key).count + $1.value.encodedSize }
    }

    private static func writeProperties(_ object: AMF0Object, to buffer: inout ByteBuffer) {
        for property in object.properties {
            let key = keyBytes(property.key)
            buffer.writeInteger(UInt16(key.count))
            buffer.writeBytes(key)
            property.value.write(to: &buffer)
        }
        buffer.writeInteger(UInt16(0))
        buffer.writeInteger(Marker.objectEnd)
    }
}
