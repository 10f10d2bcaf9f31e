/// The `avcC` box body (ISO/IEC 14496-15 §5.3.3.1, "AVCDecoderConfigurationRecord"): what RTMP's
/// AVC sequence header and MP4's sample entry carry instead of in-band SPS/PPS.
///
/// ```
/// configurationVersion = 1        u8
/// AVCProfileIndication            u8   (SPS byte 1)
/// profile_compatibility           u8   (SPS byte 2)
/// AVCLevelIndication              u8   (SPS byte 3)
/// '111111'b + lengthSizeMinusOne  u8   (3: 4-byte lengths)
/// '111'b + numOfSequenceParameterSets (5 bits), then per SPS: u16 length, bytes
/// numOfPictureParameterSets u8, then per PPS: u16 length, bytes
/// for profiles 100, 110, 122, 144: '111111'b+chroma_format, '11111'b+bit_depth_luma_minus8,
///   '11111'b+bit_depth_chroma_minus8, numOfSequenceParameterSetExt u8 (0)
/// ```
public struct AVCDecoderConfigurationRecord: Sendable, Equatable {
    public var sps: [[UInt8]]
    public var pps: [[UInt8]]

    static let lengthSizeMinusOneByte: UInt8 = 0xFC | 3
    static let spsCountMarker: UInt8 = 0xE0
    static let profilesWithExtension: Set<UInt8> = [100, 110, 122, 144]

    /// Needs at least one SPS (the first decides profile and level) and one PPS.
    public init(sps: [[UInt8]], pps: [[UInt8]]) throws(CodecError) {
        guard let first = sps.first, first.count >= 4 else {
            throw .malformedBitstream(structure: "AVCDecoderConfigurationRecord", detail: "no SPS (or an SPS shorter than 4 bytes)")
        }
        guard !pps.isEmpty else {
            throw .malformedBitstream(structure: "AVCDecoderConfigurationRecord", detail: "no PPS")
        }
        guard sps.count < 32, pps.count < 256, (sps + pps).allSatisfy({ $0.count <= Int(UInt16.max) }) else {
            throw .malformedBitstream(structure: "AVCDecoderConfigurationRecord", detail: "too many or too long parameter sets")
        }
        _ = try H264SPS(nalUnit: first)
        self.sps = sps
        self.pps = pps
    }

    /// The record's bytes.
    public var bytes: [UInt8] {
        let first = sps[0]
        var out: [UInt8] = [1, first[1], first[2], first[3], Self.lengthSizeMinusOneByte, Self.spsCountMarker | UInt8(sps.count)]
        for unit in sps { Self.append(unit, to: &out) }
        out.append(UInt8(pps.count))
        for unit in pps { Self.append(unit, to: &out) }
        if Self.profilesWithExtension.contains(first[1]), let parsed = try? H264SPS(nalUnit: first) {
            out.append(0xFC | UInt8(parsed.chromaFormatIDC & 3))
            out.append(0xF8 | UInt8(parsed.bitDepthLumaMinus8 & 7))
            out.append(0xF8 | UInt8(parsed.bitDepthChromaMinus8 & 7))
            out.append(0)
        }
        return out
    }

    /// Parses a record (the extension for high profiles is not needed to rebuild it, so it is skipped).
    public init(bytes: [UInt8]) throws(CodecError) {
        var reader = ByteReader(bytes, structure: "AVCDecoderConfigurationRecord")
        guard try reader.u8() == 1 else {
            throw .malformedBitstream(structure: "AVCDecoderConfigurationRecord", detail: "configurationVersion is not 1")
        }
        try reader.skip(3)
        guard try reader.u8() & 3 == 3 else {
            throw .malformedBitstream(structure: "AVCDecoderConfigurationRecord", detail: "livepush needs 4-byte NAL lengths")
        }
        var sps = [[UInt8]](), pps = [[UInt8]]()
        for _ in 0..<(try reader.u8() & 0x1F) { sps.append(try reader.sized16()) }
        for _ in 0..<(try reader.u8()) { pps.append(try reader.sized16()) }
        try self.init(sps: sps, pps: pps)
    }

    private static func append(_ unit: [UInt8], to out: inout [UInt8]) {
        out.append(UInt8(unit.count >> 8))
        out.append(UInt8(truncatingIfNeeded: unit.count))
        out.append(contentsOf: unit)
    }
}
