import NIOCore

extension AMF0Value {
    /// Decodes one value. On error the buffer's reader index is left where it was.
    public init(from buffer: inout ByteBuffer) throws(RTMPError) {
        var copy = buffer
        self = try Self.decode(from: &copy, depth: 0)
        buffer = copy
    }

    /// Decodes values until the buffer is empty (command arguments, RTMP spec §7.1.1).
    public static func decodeAll(from buffer: inout ByteBuffer) throws(RTMPError) -> [AMF0Value] {
        var values: [AMF0Value] = []
        while buffer.readableBytes > 0 {
            values.append(try AMF0Value(from: &buffer))
        }
        return values
    }

    private static func decode(from buffer: inout ByteBuffer, depth: Int) throws(RTMPError) -> AMF0Value {
        guard depth < maximumNestingDepth else { throw .amf0NestingTooDeep(limit: maximumNestingDepth) }
        let marker: UInt8 = try buffer.readRequiredInteger("AMF0 type marker")
        switch marker {
        case Marker.number:
            return .number(Double(bitPattern: try buffer.readRequiredInteger("AMF0 number")))
        case Marker.boolean:
            let byte: UInt8 = try buffer.readRequiredInteger("AMF0 boolean")
            return .boolean(byte != 0)
        case Marker.string:
            return .string(try readUTF8(from: &buffer, length: Int(try buffer.readRequiredInteger(as: UInt16.self, "AMF0 string length"))))
        case Marker.longString:
            return .longString(try readUTF8(from: &buffer, length: Int(try buffer.readRequiredInteger(as: UInt32.self, "AMF0 long string length"))))
        case Marker.object:
            return .object(try readProperties(from: &buffer, depth: depth))
        case Marker.ecmaArray:
            _ = try buffer.readRequiredInteger(as: UInt32.self, "AMF0 ECMA array count")
            return .ecmaArray(try readProperties(from: &buffer, depth: depth))
        case Marker.strictArray:
            let count = Int(try buffer.readRequiredInteger(as: UInt32.self, "AMF0 strict array count"))
            // Every element takes at least one byte, so a count beyond the readable bytes is truncation,
            // caught before reserving memory for it.
            guard count <= buffer.readableBytes else {
                throw .truncated(what: "AMF0 strict array elements", needed: count, available: buffer.readableBytes)
            }
            var elements: [AMF0Value] = []
            elements.reserveCapacity(count)
            for _ in 0..<count {
                elements.append(try decode(from: &buffer, depth: depth + 1))
            }
            return .strictArray(elements)
        case Marker.date:
            let milliseconds = Double(bitPattern: try buffer.readRequiredInteger("AMF0 date"))
            let timeZone: Int16 = try buffer.readRequiredInteger("AMF0 date time zone")
            return .date(millisecondsSince1970: milliseconds, timeZone: timeZone)
        case Marker.null:
            return .null
        case Marker.undefined:
            return .undefined
        case Marker.objectEnd:
            throw .amf0UnexpectedObjectEnd
        case Marker.movieClip, Marker.reference, Marker.unsupported, Marker.recordSet,
            Marker.xmlDocument, Marker.typedObject, Marker.avmPlusObject:
            throw .amf0UnsupportedMarker(marker)
        default:
            throw .amf0UnknownMarker(marker)
        }
    }

    /// Reads `key value` pairs up to the empty key followed by the object-end marker (AMF0 spec §2.5, §2.11).
    private static func readProperties(from buffer: inout ByteBuffer, depth: Int) throws(RTMPError) -> AMF0Object {
        var object = AMF0Object()
        while true {
            let keyLength = Int(try buffer.readRequiredInteger(as: UInt16.self, "AMF0 property name length"))
            if keyLength == 0 {
                let marker: UInt8 = try buffer.readRequiredInteger("AMF0 object-end marker")
                guard marker == Marker.objectEnd else {
                    // An empty key is legal only as the end sentinel in practice; anything else is malformed.
                    throw .amf0UnknownMarker(marker)
                }
                return object
            }
            let key = try readUTF8(from: &buffer, length: keyLength)
            object.append(key, try decode(from: &buffer, depth: depth + 1))
        }
    }

    private static func readUTF8(from buffer: inout ByteBuffer, length: Int) throws(RTMPError) -> String {
        let bytes = try buffer.readRequiredSlice(length: length, "AMF0 string")
        guard let string = String(validating: bytes.readableBytesView, as: UTF8.self) else {
            throw .amf0InvalidUTF8
        }
        return string
    }
}
