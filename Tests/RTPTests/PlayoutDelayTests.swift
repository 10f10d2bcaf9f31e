import NIOCore
import Testing
@testable import RTP

@Suite("playout-delay header extension")
struct PlayoutDelayTests {
    @Test func twelveBitFieldsOfTenMillisecondsOnTheWire() throws {
        // min 0x00A (100 ms), max 0xFFF (40.95 s)
        let value = try PlayoutDelay(minimumMillis: 100, maximumMillis: 40_950)
        #expect(encode(value.write) == bytes("00 AF FF"))
        var wire = bytes("00 AF FF")
        #expect(try PlayoutDelay(from: &wire) == value)
        #expect(wire.readableBytes == 0)
    }

    @Test func lowLatencyBoundsAsAnElementInABlock() throws {
        let value = try PlayoutDelay(minimumMillis: 0, maximumMillis: 100)
        let block = try RTPHeaderExtension(oneByteElements: [value.element(id: 6)])
        // ID=6 L=2 | 000 00A: one word, no padding
        #expect(encode(block.write) == bytes("BE DE 00 01 | 62 00 00 0A"))
        #expect(PlayoutDelay(in: block, id: 6) == value)
        #expect(PlayoutDelay(in: block, id: 5) == nil)
    }

    @Test func writtenInPlaceAfterAnotherElement() throws {
        var buffer = ByteBuffer()
        try RTPHeaderExtension.writeOneByteElement(id: 1, length: 2, to: &buffer) { $0.writeInteger(UInt16(0x0A0B)) }
        try PlayoutDelay(minimumMillis: 20, maximumMillis: 30).writeElement(id: 2, to: &buffer)
        RTPHeaderExtension.padOneByteBlock(in: &buffer, from: 0)
        #expect(buffer == bytes("11 0A 0B | 22 00 20 03 | 00"))
    }

    @Test func valuesBetweenStepsRoundDownAndOutOfRangeIsRefused() throws {
        let value = try PlayoutDelay(minimumMillis: 19, maximumMillis: 105)
        #expect(value.minimumMillis == 10 && value.maximumMillis == 100)
        #expect(throws: RTPError.self) { try PlayoutDelay(minimumMillis: -10, maximumMillis: 0) }
        #expect(throws: RTPError.self) { try PlayoutDelay(minimumMillis: 100, maximumMillis: 50) }
        #expect(throws: RTPError.self) { try PlayoutDelay(minimumMillis: 0, maximumMillis: 40_960) }
    }

    @Test(arguments: [0, 1, 2, 4, 16])
    func anyOtherLengthIsMalformed(length: Int) {
        var wire = ByteBuffer(repeating: 0x11, count: length)
        #expect(throws: RTPError.invalidLength(field: "playout-delay", length: length)) { try PlayoutDelay(from: &wire) }
    }
}
