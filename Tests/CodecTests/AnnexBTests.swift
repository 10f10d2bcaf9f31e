import Testing
@testable import Codec

@Suite struct AnnexBTests {
    @Test(arguments: [
        // 4-byte and 3-byte start codes, then a trailing zero byte (trailing_zero_8bits) dropped.
        ([0, 0, 0, 1, 0x67, 0xAA, 0, 0, 1, 0x68, 0xBB, 0xCC, 0], [[0x67, 0xAA], [0x68, 0xBB, 0xCC]]),
        // Leading garbage before the first start code is ignored.
        ([0xFF, 0x00, 0, 0, 1, 0x65, 1, 2, 3], [[0x65, 1, 2, 3]]),
        // Emulation-prevented payload (00 00 03 01) is not a start code.
        ([0, 0, 1, 0x41, 0, 0, 3, 1, 9], [[0x41, 0, 0, 3, 1, 9]]),
        // Empty NAL units between start codes are skipped.
        ([0, 0, 1, 0, 0, 1, 0x09, 0xF0], [[0x09, 0xF0]]),
        // No start code at all: nothing.
        ([1, 2, 3, 4], []),
    ] as [([UInt8], [[UInt8]])])
    func splitsNALUnits(stream: [UInt8], expected: [[UInt8]]) {
        #expect(AnnexB.nalUnits(in: stream) == expected)
    }

    @Test func convertsToLengthPrefixedAndBack() throws {
        let units: [[UInt8]] = [[0x67, 0x64, 0, 0x1F], [0x68, 0xEE], Array(repeating: 0x55, count: 300)]
        let annexB = AnnexB.join(units)
        let avcc = AnnexB.toLengthPrefixed(annexB)
        // 4-byte big-endian lengths: 4, 2, 300 (0x012C).
        #expect(Array(avcc[0..<4]) == [0, 0, 0, 4])
        #expect(Array(avcc[8..<12]) == [0, 0, 0, 2])
        #expect(Array(avcc[14..<18]) == [0, 0, 1, 0x2C])
        #expect(avcc.count == 4 * 3 + 4 + 2 + 300)
        #expect(try AnnexB.fromLengthPrefixed(avcc) == annexB)
    }

    @Test func truncatedLengthPrefixedThrowsAtEveryOffset() {
        let avcc: [UInt8] = [0, 0, 0, 3, 0x65, 1, 2]
        for cut in 1..<avcc.count {
            #expect(throws: CodecError.self) { try AnnexB.fromLengthPrefixed(Array(avcc[0..<cut])) }
        }
    }

    @Test func encodedFrameViewsShareTheAccessUnit() throws {
        let data = AnnexB.join([[0x67, 1, 2, 3], [0x68, 4], [0x65, 5, 6]])
        let frame = EncodedVideoFrame(codec: .h264, data: data, nalUnitRanges: AnnexB.nalUnitRanges(in: data), ptsNanos: 0,
                                      dtsNanos: 0, isKeyFrame: true, parameterSets: ParameterSets(codec: .h264))
        #expect(frame.nalUnitTypes == [7, 8, 5])
        var avcc = [UInt8]()
        frame.appendLengthPrefixed(to: &avcc)
        #expect(avcc == AnnexB.toLengthPrefixed(data))
        #expect(avcc.count == frame.lengthPrefixedSize)
        #expect(Array(frame.nalUnits[2]) == [0x65, 5, 6])
    }
}
