import NIOCore

/// 24-bit big-endian integers appear all over RTMP (chunk message headers, RTMP spec §5.3.1.2)
/// and FLV (SI24 composition time, FLV spec §E.4.3.1), so they are read and written here once.
extension ByteBuffer {
    /// Reads a big-endian unsigned 24-bit integer, or returns `nil` (moving nothing) if fewer than 3 bytes are readable.
    public mutating func read24UInt() -> UInt32? {
        guard let value = getUInt24(at: readerIndex) else { return nil }
        moveReaderIndex(forwardBy: 3)
        return value
    }

    /// Writes the low 24 bits of `value` big-endian; returns the number of bytes written (3).
    @discardableResult
    public mutating func write24UInt(_ value: UInt32) -> Int {
        writeInteger(UInt8(truncatingIfNeeded: value >> 16))
        writeInteger(UInt16(truncatingIfNeeded: value))
        return 3
    }

    /// Reads an unsigned 24-bit integer at `index` without moving the reader index.
    public func getUInt24(at index: Int) -> UInt32? {
        guard let high = getInteger(at: index, as: UInt8.self),
            let low = getInteger(at: index + 1, as: UInt16.self)
        else { return nil }
        return UInt32(high) << 16 | UInt32(low)
    }
}

/// Throwing readers used by every decoder in this module, so truncation is always the same typed error.
extension ByteBuffer {
    mutating func readRequiredInteger<T: FixedWidthInteger>(
        as: T.Type = T.self, endianness: Endianness = .big, _ what: StaticString
    ) throws(RTMPError) -> T {
        guard let value = readInteger(endianness: endianness, as: T.self) else {
            throw .truncated(what: "\(what)", needed: MemoryLayout<T>.size, available: readableBytes)
        }
        return value
    }

    mutating func readRequired24UInt(_ what: StaticString) throws(RTMPError) -> UInt32 {
        guard let value = read24UInt() else {
            throw .truncated(what: "\(what)", needed: 3, available: readableBytes)
        }
        return value
    }

    mutating func readRequiredSlice(length: Int, _ what: StaticString) throws(RTMPError) -> ByteBuffer {
        guard let slice = readSlice(length: length) else {
            throw .truncated(what: "\(what)", needed: length, available: readableBytes)
        }
        return slice
    }

    /// Reads a signed 24-bit big-endian integer (FLV `SI24`), sign-extended to 32 bits.
    mutating func readRequired24Int(_ what: StaticString) throws(RTMPError) -> Int32 {
        let raw = try readRequired24UInt(what)
        return Int32(bitPattern: raw << 8) >> 8
    }

    /// Writes the low 24 bits of a signed value (FLV `SI24`).
    mutating func write24Int(_ value: Int32) {
        write24UInt(UInt32(bitPattern: value))
    }
}
