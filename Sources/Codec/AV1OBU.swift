/// One Open Bitstream Unit of an AV1 temporal unit in the low-overhead format (AV1 §5.2, §5.3),
/// as ranges into the bytes it was found in.
///
/// ```
/// obu_header:  forbidden u1 = 0 | obu_type u4 | extension_flag u1 | has_size_field u1 | reserved u1
///              [extension: temporal_id u3 | spatial_id u2 | reserved u3]
/// obu_size:    leb128, when has_size_field (else the OBU runs to the end of the data)
/// payload:     obu_size bytes
/// ```
public struct AV1OBU: Sendable, Hashable {
    public var type: UInt8
    /// The whole OBU: header, size field and payload.
    public var range: Range<Int>
    /// The payload alone.
    public var payloadRange: Range<Int>

    static let forbiddenBit: UInt8 = 0x80
    static let typeShift: UInt8 = 3
    static let typeMask: UInt8 = 0x0F
    static let extensionFlag: UInt8 = 0x04
    static let hasSizeFieldFlag: UInt8 = 0x02
    /// leb128 values are at most 8 bytes and must fit 32 bits (AV1 §4.10.5).
    static let maximumLEB128Bytes = 8

    /// The OBUs of a temporal unit, in order. Throws on a forbidden bit set, a size field running
    /// past the data, or a payload longer than what is left.
    public static func obus<C: RandomAccessCollection>(in bytes: C) throws(CodecError) -> [AV1OBU]
    where C.Element == UInt8, C.Index == Int {
        var obus: [AV1OBU] = []
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let header = bytes[offset]
            guard header & forbiddenBit == 0 else {
                throw .malformedBitstream(structure: "AV1 OBU header", detail: "forbidden bit set at offset \(offset - bytes.startIndex)")
            }
            var cursor = offset + 1 + (header & extensionFlag != 0 ? 1 : 0)
            guard cursor <= bytes.endIndex else { throw .truncatedBitstream(structure: "AV1 OBU header") }
            let payloadEnd: Int
            if header & hasSizeFieldFlag != 0 {
                let size = try leb128(in: bytes, at: &cursor)
                guard size <= bytes.endIndex - cursor else { throw .truncatedBitstream(structure: "AV1 OBU payload") }
                payloadEnd = cursor + size
            } else {
                payloadEnd = bytes.endIndex
            }
            obus.append(AV1OBU(type: (header >> typeShift) & typeMask, range: offset..<payloadEnd, payloadRange: cursor..<payloadEnd))
            offset = payloadEnd
        }
        return obus
    }

    /// `leb128()` (AV1 §4.10.5): little-endian groups of 7 bits, the top bit saying another byte follows.
    static func leb128<C: RandomAccessCollection>(in bytes: C, at offset: inout Int) throws(CodecError) -> Int
    where C.Element == UInt8, C.Index == Int {
        var value: UInt64 = 0
        for index in 0..<maximumLEB128Bytes {
            guard offset < bytes.endIndex else { throw .truncatedBitstream(structure: "AV1 OBU size") }
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << (7 * index)
            if byte & 0x80 == 0 {
                guard value <= UInt64(UInt32.max) else {
                    throw .malformedBitstream(structure: "AV1 OBU size", detail: "\(value) does not fit 32 bits")
                }
                return Int(value)
            }
        }
        throw .malformedBitstream(structure: "AV1 OBU size", detail: "leb128 longer than 8 bytes")
    }

    /// Appends `value` as leb128 in as few bytes as it needs.
    static func appendLEB128(_ value: Int, to out: inout [UInt8]) {
        var rest = UInt64(value)
        repeat {
            let low = UInt8(rest & 0x7F)
            rest >>= 7
            out.append(rest == 0 ? low : low | 0x80)
        } while rest != 0
    }
}

/// AV1 OBU types used here (AV1 §6.2.2, Table 6-2 "obu_type").
public enum AV1OBUType {
    public static let sequenceHeader: UInt8 = 1
}
