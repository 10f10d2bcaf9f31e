import MediaCore
import Testing
import TestSupport
@testable import Codec

@Suite struct CaptureTimeSEITests {
    @Test(arguments: [VideoCodec.h264, .hevc])
    func roundTripsThroughTheNALUnit(codec: VideoCodec) {
        for ntpTime: UInt64 in [0, 1, 0xFFFF_FFFF_FFFF_FFFF, 0xEB1E_0000_0000_0300, 0x0000_0100_0002_0000, 0xEB1E_5A2B_8000_0000] {
            var nalUnit: [UInt8] = []
            CaptureTimeSEI(ntpTime: ntpTime).appendNALUnit(for: codec, to: &nalUnit)
            #expect(nalUnit.count <= CaptureTimeSEI.maximumNALUnitSize)
            #expect(CaptureTimeSEI.parse(nalUnit: nalUnit, codec: codec) == CaptureTimeSEI(ntpTime: ntpTime))
            #expect(!Self.hasStartCodeEmulation(nalUnit), "\(nalUnit)")
        }
    }

    @Test func writesTheDocumentedBytesWithEmulationPrevention() {
        var nalUnit: [UInt8] = []
        CaptureTimeSEI(ntpTime: 0x0000_0001_0000_0000).appendNALUnit(for: .h264, to: &nalUnit)
        // NAL header 6, payload type 5, size 24, our UUID, then 00 00 00 01 00 00 00 00 escaped, trailing bits.
        let expected: [UInt8] = [6, 5, 24] + CaptureTimeSEI.uuid + [0, 0, 3, 0, 1, 0, 0, 3, 0, 0, 0x80]
        #expect(nalUnit == expected)
        var hevc: [UInt8] = []
        CaptureTimeSEI(ntpTime: 0x0000_0001_0000_0000).appendNALUnit(for: .hevc, to: &hevc)
        #expect(hevc == [0x4E, 0x01] + expected.dropFirst())
        #expect(VideoCodec.hevc.nalUnitType(firstByte: hevc[0]) == HEVCNALType.prefixSEI)
    }

    @Test func convertsUnixTimeToNTP() {
        // The Unix epoch is 2 208 988 800 s after NTP's; half a second is half the fraction.
        #expect(CaptureTimeSEI(unixNanos: 0).ntpTime == UInt64(2_208_988_800) << 32)
        #expect(CaptureTimeSEI(unixNanos: 1_500_000_000).ntpTime == (UInt64(2_208_988_801) << 32 | 0x8000_0000))
        for nanos: Int64 in [0, 1, 999_999_999, 1_764_393_600_123_456_789] {
            #expect(abs(CaptureTimeSEI(unixNanos: nanos).unixNanos - nanos) <= 1)
        }
    }

    @Test func findsOurMessageAfterAnotherOneInTheSameSEI() {
        // An encoder's own user data (x264 writes one), with another UUID, and a 300-byte payload
        // whose size takes two bytes (255 + 45), before ours.
        var ours: [UInt8] = []
        CaptureTimeSEI(ntpTime: 0xEB1E_5A2B_1234_5678).appendNALUnit(for: .h264, to: &ours)
        let foreign: [UInt8] = [5, 0xFF, 45] + Array(repeating: 0x11, count: 300)
        let nalUnit = [ours[0]] + foreign + ours.dropFirst()
        #expect(CaptureTimeSEI.parse(nalUnit: nalUnit, codec: .h264) == CaptureTimeSEI(ntpTime: 0xEB1E_5A2B_1234_5678))
        // Only the foreign message: no capture time.
        #expect(CaptureTimeSEI.parse(nalUnit: [ours[0]] + foreign + [0x80], codec: .h264) == nil)
    }

    @Test func rejectsOtherNALUnitsAndCodecs() {
        var nalUnit: [UInt8] = []
        CaptureTimeSEI(ntpTime: 42).appendNALUnit(for: .h264, to: &nalUnit)
        #expect(CaptureTimeSEI.parse(nalUnit: nalUnit, codec: .hevc) == nil)
        #expect(CaptureTimeSEI.parse(nalUnit: nalUnit, codec: .av1) == nil)
        #expect(CaptureTimeSEI.parse(nalUnit: [0x65] + nalUnit.dropFirst(), codec: .h264) == nil)
        var av1: [UInt8] = []
        CaptureTimeSEI(ntpTime: 42).appendNALUnit(for: .av1, to: &av1)
        #expect(av1.isEmpty)
    }

    /// Malformed input never crashes: every truncation of a real message, and random bytes behind an SEI header.
    @Test(arguments: [VideoCodec.h264, .hevc])
    func survivesMalformedInput(codec: VideoCodec) {
        var nalUnit: [UInt8] = []
        CaptureTimeSEI(ntpTime: 0xEB1E_5A2B_0000_0001).appendNALUnit(for: codec, to: &nalUnit)
        let header = codec == .h264 ? 1 : 2
        // Without the whole UUID and time the message is incomplete: only the trailing byte may go.
        for cut in 0..<(nalUnit.count - 1) {
            #expect(CaptureTimeSEI.parse(nalUnit: nalUnit[0..<cut], codec: codec) == nil, "cut at \(cut)")
        }
        #expect(CaptureTimeSEI.parse(nalUnit: nalUnit.dropLast(), codec: codec) != nil)
        var generator = SplitMix64(seed: 30)
        for round in 0..<5_000 {
            let length = Int(generator.next() % 64)
            let body = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next() % (round.isMultiple(of: 3) ? 8 : 256)) }
            _ = CaptureTimeSEI.parse(nalUnit: nalUnit.prefix(header) + body, codec: codec)
            _ = CaptureTimeSEI.parse(nalUnit: nalUnit.prefix(header + 1) + [0xFF, 0xFF] + body, codec: codec)
        }
    }

    /// `00 00 00`, `00 00 01` or `00 00 02` inside a NAL unit: what emulation prevention must rule out.
    static func hasStartCodeEmulation(_ bytes: [UInt8]) -> Bool {
        bytes.indices.dropLast(2).contains { bytes[$0] == 0 && bytes[$0 + 1] == 0 && bytes[$0 + 2] < 3 }
    }
}
