import NIOCore
import Testing
@testable import RTP

/// NAL units used across the H.264 tests. Header bytes: F=0, NRI=3 for SPS/PPS/IDR, NRI=2 for the P slice.
enum H264Samples {
    // F=0 NRI=11 type=7 (SPS)
    static let sps = bytes("67 42 00 1F")
    // F=0 NRI=11 type=8 (PPS)
    static let pps = bytes("68 CE 3C 80")
    // F=0 NRI=11 type=5 (IDR), 19 bytes after the header: 01 02 ... 13
    static let idr = bytes([0x65] + (1...19).map { UInt8($0) })
    // F=0 NRI=10 type=1 (non-IDR slice)
    static let slice = bytes("41 9A 02 03")
}

@Suite("H.264 payloader (RFC 6184)")
struct H264PayloaderTests {
    @Test func aggregatesParameterSetsAndFragmentsTheIDR() throws {
        var payloader = try H264Payloader(maxPayloadSize: 16)
        let payloads = try payloader.payloads(for: [H264Samples.sps, H264Samples.pps, H264Samples.idr])
        #expect(payloads == [
            // STAP-A: F=0 NRI=max(3,3) type=24 | len 4 SPS | len 4 PPS
            bytes("78 | 00 04 67 42 00 1F | 00 04 68 CE 3C 80"),
            // FU indicator F=0 NRI=3 type=28 | FU header S=1 E=0 type=5 | 14 bytes
            bytes([0x7C, 0x85] + (1...14).map { UInt8($0) }),
            // FU indicator | FU header S=0 E=1 type=5 | last 5 bytes
            bytes([0x7C, 0x45] + (15...19).map { UInt8($0) }),
        ])
        #expect(payloads.allSatisfy { $0.readableBytes <= 16 })
    }

    @Test func singleNALUnitIsPassedThroughWithoutCopy() throws {
        var payloader = try H264Payloader()
        let payloads = try payloader.payloads(for: [H264Samples.slice])
        #expect(payloads == [H264Samples.slice])
        payloads[0].withUnsafeReadableBytes { out in
            H264Samples.slice.withUnsafeReadableBytes { input in #expect(out.baseAddress == input.baseAddress) }
        }
    }

    @Test func stapANRIIsTheMaximumAndFIsOred() throws {
        var payloader = try H264Payloader()
        // F=0 NRI=00 type=6 (SEI) and F=1 NRI=10 type=1
        let payloads = try payloader.payloads(for: [bytes("06 05"), bytes("C1 01")])
        // F=1 NRI=10 type=24
        #expect(payloads == [bytes("D8 | 00 02 06 05 | 00 02 C1 01")])
    }

    @Test func insertsCachedParameterSetsBeforeABareIDR() throws {
        var payloader = try H264Payloader()
        _ = try payloader.payloads(for: [H264Samples.sps, H264Samples.pps, H264Samples.idr])
        let idrOnly = try payloader.payloads(for: [bytes("65 88 84")])
        // STAP-A with SPS, PPS and the IDR
        #expect(idrOnly == [bytes("78 | 00 04 67 42 00 1F | 00 04 68 CE 3C 80 | 00 03 65 88 84")])
        let pFrame = try payloader.payloads(for: [H264Samples.slice])
        #expect(pFrame == [H264Samples.slice], "only IDRs get parameter sets")
    }

    @Test func annexBInput() throws {
        var payloader = try H264Payloader()
        var stream = ByteBuffer()
        H264AnnexB.write([H264Samples.slice], to: &stream)
        #expect(try payloader.payloads(annexB: stream) == [H264Samples.slice])
    }

    @Test(arguments: [0, 1, 2, 65536])
    func rejectsUnusableMaximum(maximum: Int) {
        #expect(throws: RTPError.valueOutOfRange(field: "max payload size", value: maximum)) {
            try H264Payloader(maxPayloadSize: maximum)
        }
    }

    @Test func rejectsEmptyNALUnit() throws {
        var payloader = try H264Payloader()
        #expect(throws: RTPError.emptyPayload) { try payloader.payloads(for: [ByteBuffer()]) }
    }

    @Test(arguments: [3, 4, 5, 17, 100])
    func fragmentsNeverExceedTheMaximum(maximum: Int) throws {
        var payloader = try H264Payloader(maxPayloadSize: maximum)
        let big = bytes([0x65] + (0..<500).map { UInt8(truncatingIfNeeded: $0) })
        let payloads = try payloader.payloads(for: [big])
        #expect(payloads.allSatisfy { $0.readableBytes <= maximum })
        // Reassembled FU payloads give back the NAL body.
        let body = payloads.flatMap { Array($0.readableBytesView.dropFirst(2)) }
        #expect(body == Array(big.readableBytesView.dropFirst()))
        #expect(payloads.first?.getInteger(at: 1, as: UInt8.self) == 0x85)
        #expect(payloads.last.flatMap { $0.getInteger(at: 1, as: UInt8.self) } == 0x45)
    }
}

@Suite("H.264 Annex B")
struct H264AnnexBTests {
    @Test func splitsOnThreeAndFourByteStartCodes() throws {
        // 4-byte start | SPS | 3-byte start | PPS + trailing zero | 4-byte start | slice | trailing zeros
        let stream = bytes("00 00 00 01 67 42 | 00 00 01 68 CE 00 | 00 00 00 01 41 9A 00 00")
        #expect(try H264AnnexB.split(stream) == [bytes("67 42"), bytes("68 CE"), bytes("41 9A")])
    }

    @Test func emptyInputHasNoUnits() throws {
        #expect(try H264AnnexB.split(ByteBuffer()).isEmpty)
    }

    @Test(arguments: ["67 42 00 00 01 68", "00 00 00", "00 01 67"])
    func rejectsDataBeforeAStartCode(hex: String) {
        #expect(throws: RTPError.missingStartCode) { try H264AnnexB.split(bytes(hex)) }
    }

    @Test func writeThenSplitRoundTrips() throws {
        var stream = ByteBuffer()
        let units = [H264Samples.sps, H264Samples.pps, H264Samples.idr]
        H264AnnexB.write(units, to: &stream)
        #expect(try H264AnnexB.split(stream) == units)
    }
}
