import MediaCore
import NIOCore
import Testing
@testable import RTP

@Suite("abs-capture-time header extension")
struct AbsoluteCaptureTimeTests {
    @Test func shortFormOnTheWire() throws {
        let value = AbsoluteCaptureTime(captureTime: NTPTimestamp(seconds: 0xE8F1_2345, fraction: 0x8000_0001))
        #expect(encode(value.write) == bytes("E8 F1 23 45 80 00 00 01"))
        var wire = bytes("E8 F1 23 45 80 00 00 01")
        #expect(try AbsoluteCaptureTime(from: &wire) == value)
        #expect(wire.readableBytes == 0)
    }

    @Test func longFormRoundTripsTheSignedClockOffset() throws {
        let value = AbsoluteCaptureTime(captureTime: NTPTimestamp(rawValue: 0x0102_0304_0506_0708), estimatedCaptureClockOffset: -0x1_8000_0000)
        var wire = encode(value.write)
        #expect(wire == bytes("01 02 03 04 05 06 07 08 | FF FF FF FE 80 00 00 00"))
        #expect(try AbsoluteCaptureTime(from: &wire) == value)
    }

    @Test(arguments: [0, 1, 7, 9, 15, 17])
    func anyOtherLengthIsMalformed(length: Int) {
        var wire = ByteBuffer(repeating: 0xAB, count: length)
        #expect(throws: RTPError.invalidLength(field: "abs-capture-time", length: length)) { try AbsoluteCaptureTime(from: &wire) }
    }

    @Test func wallClockNanosRoundTripThroughTheExtensionWithinANanosecond() throws {
        let unixNanos: Int64 = 1_795_000_000_123_456_789
        let value = AbsoluteCaptureTime(captureTime: NTPTimestamp(unixNanos: unixNanos))
        var wire = encode(value.write)
        #expect(try AbsoluteCaptureTime(from: &wire).captureTime.unixNanos == unixNanos)
    }

    @Test func elementWrittenInPlaceSharesABlockAndReadsBack() throws {
        var buffer = ByteBuffer(bytes: [0xFF, 0xFF])
        let value = AbsoluteCaptureTime(captureTime: NTPTimestamp(rawValue: 0x1122_3344_5566_7788))
        try RTPHeaderExtension.writeOneByteElement(id: 1, length: 2, to: &buffer) { $0.writeInteger(UInt16(0x0A0B)) }
        try value.writeElement(id: 3, to: &buffer)
        RTPHeaderExtension.padOneByteBlock(in: &buffer, from: 2)
        let block = try RTPHeaderExtension(oneByteBlockIn: buffer, at: 2..<buffer.writerIndex)
        // ID=1 L=1 | 0A 0B | ID=3 L=7 | 8 bytes: three words, no padding
        #expect(encode(block.write) == bytes("BE DE 00 03 | 11 0A 0B | 37 11 22 33 44 55 66 77 88"))
        #expect(AbsoluteCaptureTime(in: block, id: 3) == value)
        #expect(AbsoluteCaptureTime(in: block, id: 1) == nil, "a 2-byte element is no capture time")
        #expect(AbsoluteCaptureTime(in: block, id: 4) == nil)
    }

    @Test func elementWriterRejectsABodyOfAnotherLengthAndBadIDs() {
        var buffer = ByteBuffer()
        #expect(throws: RTPError.self) { try RTPHeaderExtension.writeOneByteElement(id: 1, length: 2, to: &buffer) { $0.writeInteger(UInt8(1)) } }
        #expect(throws: RTPError.self) { try RTPHeaderExtension.writeOneByteElement(id: 15, length: 1, to: &buffer) { $0.writeInteger(UInt8(1)) } }
        #expect(throws: RTPError.self) { try RTPHeaderExtension.writeOneByteElement(id: 1, length: 17, to: &buffer) { $0.writeZeros(17) } }
    }
}
