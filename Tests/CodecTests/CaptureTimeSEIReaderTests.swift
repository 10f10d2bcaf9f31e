import Testing
@testable import Codec

/// Finding our SEI in a demuxer's packet, framed as MPEG-TS (Annex B) or FLV (length-prefixed) carry it.
@Suite struct CaptureTimeSEIReaderTests {
    static let time = CaptureTimeSEI(ntpTime: 0xEB1E_0000_0100_0203)

    /// An access unit as the encoder orders it: AUD, SPS, PPS, x264's own user data, ours, then a slice.
    static func accessUnit(_ codec: VideoCodec, withOurs: Bool = true) -> [[UInt8]] {
        var ours: [UInt8] = []
        time.appendNALUnit(for: codec, to: &ours)
        let header: (UInt8) -> [UInt8] = { codec == .h264 ? [$0] : [$0 << 1, 1] }
        let otherUserData = header(codec == .h264 ? 6 : 39) + [5, 20] + [UInt8](repeating: 0x42, count: 20) + [0x80]
        let units: [[UInt8]] = codec == .h264
            ? [[9, 0xF0], [0x67, 0x64, 0, 0x1F], [0x68, 0xEE, 0x3C, 0x80], otherUserData]
            : [header(35) + [0x50], header(33) + [1, 2], header(34) + [3], otherUserData]
        let slice = header(codec == .h264 ? 5 : 19) + [0x88, 0, 0, 3, 1, 0x84]
        return units + (withOurs ? [ours] : []) + [slice]
    }

    static func lengthPrefixed(_ units: [[UInt8]], lengthSize: Int) -> [UInt8] {
        units.flatMap { unit in (0..<lengthSize).reversed().map { UInt8(truncatingIfNeeded: unit.count >> ($0 * 8)) } + unit }
    }

    static func read(_ packet: [UInt8], _ codec: VideoCodec, _ framing: NALUnitFraming) -> CaptureTimeSEI? {
        var reader = CaptureTimeSEIReader(codec: codec, framing: framing)
        return packet.withUnsafeBytes { reader.captureTime(inPacket: $0) }
    }

    @Test(arguments: [VideoCodec.h264, .hevc])
    func findsItInAnnexB(codec: VideoCodec) {
        #expect(Self.read(AnnexB.join(Self.accessUnit(codec)), codec, .annexB) == Self.time)
        // Three-byte start codes, as some muxers write after the first unit.
        let threeByte: [UInt8] = Self.accessUnit(codec).flatMap { [UInt8]([0, 0, 1]) + $0 }
        #expect(Self.read(threeByte, codec, .annexB) == Self.time)
        #expect(Self.read(AnnexB.join(Self.accessUnit(codec, withOurs: false)), codec, .annexB) == nil)
    }

    @Test(arguments: [VideoCodec.h264, .hevc], [1, 2, 4])
    func findsItLengthPrefixed(codec: VideoCodec, lengthSize: Int) {
        let units = Self.accessUnit(codec)
        #expect(Self.read(Self.lengthPrefixed(units, lengthSize: lengthSize), codec, .lengthPrefixed(lengthSize: lengthSize)) == Self.time)
        #expect(Self.read(Self.lengthPrefixed(Self.accessUnit(codec, withOurs: false), lengthSize: lengthSize), codec,
                          .lengthPrefixed(lengthSize: lengthSize)) == nil)
    }

    /// The same reader over many packets keeps finding it (its buffer is reused, never stale).
    @Test func aReaderReadsPacketAfterPacket() {
        var reader = CaptureTimeSEIReader(codec: .h264, framing: .lengthPrefixed(lengthSize: 4))
        for ntp: UInt64 in [1, 0xFFFF_FFFF_FFFF_FFFF, 0, 0xEB1E_5A2B_8000_0000] {
            var ours: [UInt8] = []
            CaptureTimeSEI(ntpTime: ntp).appendNALUnit(for: .h264, to: &ours)
            let packet = Self.lengthPrefixed([[9, 0xF0], ours, [5, 0x88, 0x84]], lengthSize: 4)
            #expect(packet.withUnsafeBytes { reader.captureTime(inPacket: $0) } == CaptureTimeSEI(ntpTime: ntp))
        }
    }

    @Test func aLengthPastTheEndYieldsTheUnitsBeforeIt() {
        var packet = Self.lengthPrefixed(Self.accessUnit(.h264), lengthSize: 4)
        packet += [0, 0, 1, 0, 5]  // claims 256 bytes, holds one
        #expect(Self.read(packet, .h264, .lengthPrefixed(lengthSize: 4)) == Self.time)
        // Every truncation parses to something or nothing, never past the end.
        for end in 0..<packet.count { _ = Self.read(Array(packet.prefix(end)), .h264, .lengthPrefixed(lengthSize: 4)) }
    }

    @Test func framingFollowsTheDecoderConfigurationRecord() {
        let avcC: [UInt8] = [1, 0x64, 0, 0x1F, 0xFC | 1, 0xE1]
        #expect(avcC.withUnsafeBytes { NALUnitFraming(extradata: $0, codec: .h264) } == .lengthPrefixed(lengthSize: 2))
        var hvcC = [UInt8](repeating: 0, count: 23)
        hvcC[0] = 1
        hvcC[21] = 0xFC | 3
        #expect(hvcC.withUnsafeBytes { NALUnitFraming(extradata: $0, codec: .hevc) } == .lengthPrefixed(lengthSize: 4))
        let annexBParameterSets: [UInt8] = [0, 0, 0, 1, 0x67, 0x64]
        #expect(annexBParameterSets.withUnsafeBytes { NALUnitFraming(extradata: $0, codec: .h264) } == .annexB)
        #expect([UInt8]().withUnsafeBytes { NALUnitFraming(extradata: $0, codec: .h264) } == .annexB)
    }
}
