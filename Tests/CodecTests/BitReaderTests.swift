import Testing
@testable import Codec

@Suite struct BitReaderTests {
    @Test func readsExpGolombCodes() throws {
        // 1 | 010 | 011 | 00100 | 00101 → ue: 0, 1, 2, 3; then se of code 4 = -2.
        // bits: 1010 0110 0100 0010 1(000 0000)
        var reader = BitReader(rbsp: [0b1010_0110, 0b0100_0010, 0b1000_0000], structure: "test")
        #expect(try reader.unsignedExpGolomb() == 0)
        #expect(try reader.unsignedExpGolomb() == 1)
        #expect(try reader.unsignedExpGolomb() == 2)
        #expect(try reader.unsignedExpGolomb() == 3)
        #expect(try reader.signedExpGolomb() == -2)
        #expect(throws: CodecError.truncatedBitstream(structure: "test")) { try reader.bits(8) }
    }

    @Test func removesEmulationPrevention() {
        #expect(BitReader.unescape([0x67, 0, 0, 3, 1, 0, 0, 3, 0, 0, 3]) == [0x67, 0, 0, 1, 0, 0, 0, 0])
        // A 03 not after two zeros stays.
        #expect(BitReader.unescape([0, 3, 0, 3]) == [0, 3, 0, 3])
    }

    @Test func overlongExpGolombIsMalformed() {
        var reader = BitReader(rbsp: [0, 0, 0, 0, 0, 0], structure: "test")
        #expect(throws: CodecError.self) { try reader.unsignedExpGolomb() }
    }
}
