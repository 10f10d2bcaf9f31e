/// Reads big-endian fields from a byte array, throwing ``CodecError/truncatedBitstream(structure:)``
/// instead of reading past the end (for the configuration records' parsers).
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset = 0
    let structure: String

    init(_ bytes: [UInt8], structure: String) {
        self.bytes = bytes
        self.structure = structure
    }

    mutating func u8() throws(CodecError) -> UInt8 {
        guard offset < bytes.count else { throw .truncatedBitstream(structure: structure) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() throws(CodecError) -> Int { Int(try u8()) << 8 | Int(try u8()) }

    mutating func skip(_ count: Int) throws(CodecError) {
        guard offset + count <= bytes.count else { throw .truncatedBitstream(structure: structure) }
        offset += count
    }

    /// A u16 length, then that many bytes.
    mutating func sized16() throws(CodecError) -> [UInt8] {
        let length = try u16()
        guard offset + length <= bytes.count else { throw .truncatedBitstream(structure: structure) }
        defer { offset += length }
        return Array(bytes[offset..<(offset + length)])
    }
}
