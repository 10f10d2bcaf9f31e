/// Annex-B byte streams (H.264 and H.265 Annex B): NAL units, each after a `00 00 01` or
/// `00 00 00 01` start code; and conversion to/from the length-prefixed ("AVCC") form that
/// RTMP, MP4 and Matroska carry.
public enum AnnexB {
    /// The 4-byte start code livepush writes before every NAL unit.
    public static let startCode: [UInt8] = [0, 0, 0, 1]

    /// The NAL units' byte ranges in `bytes` (start codes and trailing zero bytes excluded), in order.
    /// Bytes before the first start code are ignored; empty NAL units are skipped.
    public static func nalUnitRanges(in bytes: UnsafeRawBufferPointer) -> [Range<Int>] {
        var ranges = [Range<Int>]()
        forEachNALUnitRange(in: bytes) { ranges.append($0) }
        return ranges
    }

    /// Calls `body` with each NAL unit's byte range, as ``nalUnitRanges(in:)`` lists them, without
    /// allocating: for readers that look at every packet of a stream.
    public static func forEachNALUnitRange(in bytes: UnsafeRawBufferPointer, _ body: (Range<Int>) -> Void) {
        var unitStart: Int?
        var index = 0
        let count = bytes.count
        func close(at end: Int) {
            guard let start = unitStart else { return }
            var last = end
            while last > start && bytes[last - 1] == 0 { last -= 1 }
            if last > start { body(start..<last) }
        }
        while index + 2 < count {
            if bytes[index + 2] > 1 {
                index += 3
            } else if bytes[index] == 0 && bytes[index + 1] == 0 && bytes[index + 2] == 1 {
                close(at: index)
                unitStart = index + 3
                index += 3
            } else {
                index += 1
            }
        }
        close(at: count)
    }

    /// ``nalUnitRanges(in:)`` over an array (ranges are offsets from the array's start).
    public static func nalUnitRanges(in bytes: [UInt8]) -> [Range<Int>] {
        bytes.withUnsafeBytes { nalUnitRanges(in: $0) }
    }

    /// The NAL units of an Annex-B stream, as copies.
    public static func nalUnits(in bytes: [UInt8]) -> [[UInt8]] {
        nalUnitRanges(in: bytes).map { Array(bytes[$0]) }
    }

    /// Joins NAL units into an Annex-B stream with 4-byte start codes.
    public static func join(_ units: [[UInt8]]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(units.reduce(0) { $0 + $1.count + 4 })
        for unit in units {
            out.append(contentsOf: startCode)
            out.append(contentsOf: unit)
        }
        return out
    }

    /// Annex-B → length-prefixed with 4-byte big-endian lengths (ISO 14496-15 with lengthSizeMinusOne = 3).
    public static func toLengthPrefixed(_ bytes: [UInt8]) -> [UInt8] {
        let ranges = nalUnitRanges(in: bytes)
        var out = [UInt8]()
        out.reserveCapacity(ranges.reduce(0) { $0 + $1.count + 4 })
        for range in ranges {
            appendLength(range.count, to: &out)
            out.append(contentsOf: bytes[range])
        }
        return out
    }

    /// Length-prefixed → Annex-B. Throws when a length runs past the end.
    public static func fromLengthPrefixed(_ bytes: [UInt8], lengthSize: Int = 4) throws(CodecError) -> [UInt8] {
        guard (1...4).contains(lengthSize) else {
            throw .malformedBitstream(structure: "length-prefixed NAL units", detail: "length size \(lengthSize) is not 1…4")
        }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count + 16)
        var offset = 0
        while offset < bytes.count {
            guard offset + lengthSize <= bytes.count else { throw .truncatedBitstream(structure: "NAL unit length") }
            let length = bytes[offset..<(offset + lengthSize)].reduce(0) { $0 << 8 | Int($1) }
            offset += lengthSize
            guard offset + length <= bytes.count else { throw .truncatedBitstream(structure: "NAL unit of \(length) bytes") }
            out.append(contentsOf: startCode)
            out.append(contentsOf: bytes[offset..<(offset + length)])
            offset += length
        }
        return out
    }

    static func appendLength(_ length: Int, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: length >> 24))
        out.append(UInt8(truncatingIfNeeded: length >> 16))
        out.append(UInt8(truncatingIfNeeded: length >> 8))
        out.append(UInt8(truncatingIfNeeded: length))
    }
}
