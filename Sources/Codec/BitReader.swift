/// Reads an RBSP (a NAL unit payload with emulation-prevention bytes removed) bit by bit, most
/// significant bit first, with the Exp-Golomb codes of H.264 §9.1 / H.265 §9.2.
struct BitReader {
    private let bytes: [UInt8]
    private var bitOffset = 0
    /// Names the structure in errors ("H.264 SPS").
    let structure: String

    init(rbsp bytes: [UInt8], structure: String) {
        self.bytes = bytes
        self.structure = structure
    }

    /// Removes emulation-prevention bytes: every `00 00 03` becomes `00 00` (H.264 §7.4.1).
    static func unescape<C: Collection>(_ nalUnit: C) -> [UInt8] where C.Element == UInt8 {
        var out = [UInt8]()
        unescape(nalUnit, into: &out)
        return out
    }

    /// ``unescape(_:)`` into `out`, replacing its contents and keeping its capacity: a reader
    /// that parses every frame reuses one buffer instead of allocating one per NAL unit.
    static func unescape<C: Collection>(_ nalUnit: C, into out: inout [UInt8]) where C.Element == UInt8 {
        out.removeAll(keepingCapacity: true)
        out.reserveCapacity(nalUnit.count)
        var zeros = 0
        for byte in nalUnit {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            out.append(byte)
        }
    }

    mutating func bit() throws(CodecError) -> UInt32 {
        guard bitOffset < bytes.count * 8 else { throw .truncatedBitstream(structure: structure) }
        let value = (bytes[bitOffset >> 3] >> (7 - UInt8(bitOffset & 7))) & 1
        bitOffset += 1
        return UInt32(value)
    }

    mutating func flag() throws(CodecError) -> Bool { try bit() == 1 }

    /// `u(n)` for n ≤ 32.
    mutating func bits(_ count: Int) throws(CodecError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<count { value = value << 1 | (try bit()) }
        return value
    }

    mutating func skip(_ count: Int) throws(CodecError) {
        guard bitOffset + count <= bytes.count * 8 else { throw .truncatedBitstream(structure: structure) }
        bitOffset += count
    }

    /// `ue(v)`: leading zeros, a one, then as many suffix bits.
    mutating func unsignedExpGolomb() throws(CodecError) -> UInt32 {
        var leadingZeros = 0
        while try bit() == 0 {
            leadingZeros += 1
            guard leadingZeros < 32 else {
                throw .malformedBitstream(structure: structure, detail: "Exp-Golomb code longer than 32 bits")
            }
        }
        return (UInt32(1) << UInt32(leadingZeros)) - 1 + (try bits(leadingZeros))
    }

    /// `se(v)`: 1, 2, 3, 4 … map to 1, −1, 2, −2 ….
    mutating func signedExpGolomb() throws(CodecError) -> Int32 {
        let code = try unsignedExpGolomb()
        let magnitude = Int32(bitPattern: (code + 1) / 2)
        return code % 2 == 1 ? magnitude : -magnitude
    }
}
