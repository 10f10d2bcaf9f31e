import NIOCore

/// Annex B byte streams (ITU-T H.264 Annex B): NAL units separated by `00 00 01` or
/// `00 00 00 01` start codes, the form libavcodec's H.264 encoders emit.
public enum H264AnnexB {
    static let startCode: [UInt8] = [0, 0, 0, 1]

    /// Splits an Annex B buffer into NAL unit slices (no copy). Trailing zero bytes before a start
    /// code (`trailing_zero_8bits`) are dropped, and so are empty NAL units.
    /// Throws ``RTPError/missingStartCode`` if non-empty input does not begin with a start code.
    public static func split(_ buffer: ByteBuffer) throws(RTPError) -> [ByteBuffer] {
        // Each element: offsets of one NAL unit's first byte and one past its last.
        var bounds: [(start: Int, end: Int)] = []
        var dataBeforeStartCode = false
        buffer.withUnsafeReadableBytes { bytes in
            var zeros = 0
            var nalStart: Int?
            for index in bytes.indices {
                let byte = bytes[index]
                if byte == 0 {
                    zeros += 1
                    continue
                }
                if byte == 1, zeros >= 2 {
                    // The zeros run holds the start code and the previous NAL's trailing zeros.
                    if let start = nalStart { bounds.append((start, index - zeros)) }
                    nalStart = index + 1
                } else if nalStart == nil {
                    dataBeforeStartCode = true
                    return
                }
                zeros = 0
            }
            if let start = nalStart { bounds.append((start, bytes.count - zeros)) }
        }
        // Zeros alone are not a stream either.
        guard !dataBeforeStartCode, !bounds.isEmpty || buffer.readableBytes == 0 else { throw .missingStartCode }
        var nalUnits: [ByteBuffer] = []
        nalUnits.reserveCapacity(bounds.count)
        for bound in bounds where bound.end > bound.start {
            if let slice = buffer.getSlice(at: buffer.readerIndex + bound.start, length: bound.end - bound.start) {
                nalUnits.append(slice)
            }
        }
        return nalUnits
    }

    /// Appends `nalUnits` with 4-byte start codes.
    public static func write(_ nalUnits: [ByteBuffer], to buffer: inout ByteBuffer) {
        for nalUnit in nalUnits {
            buffer.writeBytes(startCode)
            buffer.writeImmutableBuffer(nalUnit)
        }
    }
}
