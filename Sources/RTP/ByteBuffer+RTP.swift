import NIOCore

/// Reading helpers that turn ByteBuffer's optional-returning reads into typed `truncated` errors,
/// plus the 24-bit integers RTCP uses (cumulative lost, TWCC reference time).
extension ByteBuffer {
    @inlinable
    func requireReadable(_ needed: Int) throws(RTPError) {
        guard readableBytes >= needed else {
            throw .truncated(needed: needed, available: readableBytes)
        }
    }

    @inlinable
    mutating func readRequiredInteger<T: FixedWidthInteger>(as type: T.Type = T.self) throws(RTPError) -> T {
        try requireReadable(MemoryLayout<T>.size)
        // Non-nil: `requireReadable` checked the length.
        return readInteger(as: T.self) ?? 0
    }

    @inlinable
    mutating func readRequiredSlice(length: Int) throws(RTPError) -> ByteBuffer {
        try requireReadable(length)
        return readSlice(length: length) ?? ByteBuffer()
    }

    /// Reads a big-endian unsigned 24-bit integer.
    mutating func readUInt24() throws(RTPError) -> UInt32 {
        try requireReadable(3)
        let high = UInt32(readInteger(as: UInt8.self) ?? 0)
        let low = UInt32(readInteger(as: UInt16.self) ?? 0)
        return high << 16 | low
    }

    /// Reads a big-endian two's-complement signed 24-bit integer.
    mutating func readInt24() throws(RTPError) -> Int32 {
        let raw = try readUInt24()
        // Shift the sign bit (bit 23) into bit 31, then arithmetic-shift back.
        return Int32(bitPattern: raw << 8) >> 8
    }

    /// Writes the low 24 bits of `value`, big-endian.
    mutating func writeUInt24(_ value: UInt32) {
        writeInteger(UInt8(truncatingIfNeeded: value >> 16))
        writeInteger(UInt16(truncatingIfNeeded: value))
    }

    /// Writes the low 24 bits of a two's-complement `value`, big-endian.
    mutating func writeInt24(_ value: Int32) {
        writeUInt24(UInt32(bitPattern: value))
    }

    /// Writes `count` zero bytes (alignment padding).
    mutating func writeZeros(_ count: Int) {
        if count > 0 { writeRepeatingByte(0, count: count) }
    }
}

/// Bytes needed to pad `size` up to the next multiple of four (RTCP and header extensions are
/// counted in 32-bit words).
@inlinable
func paddingToWordBoundary(_ size: Int) -> Int {
    (4 - size % 4) % 4
}
