/// The fields of an H.265 sequence parameter set (H.265 §7.3.2.2) that hvcC and outputs need:
/// the general profile/tier/level block, chroma format, bit depths and the cropped picture size.
public struct HEVCSPS: Sendable, Equatable {
    public var maxSubLayersMinus1: UInt8
    public var temporalIDNesting: Bool
    public var generalProfileSpace: UInt8
    public var generalTierFlag: Bool
    public var generalProfileIDC: UInt8
    public var generalProfileCompatibilityFlags: UInt32
    /// progressive/interlaced/non-packed/frame-only flags and the 44 bits after them (48 bits).
    public var generalConstraintIndicatorFlags: UInt64
    public var generalLevelIDC: UInt8
    public var chromaFormatIDC: UInt32
    public var bitDepthLumaMinus8: UInt32
    public var bitDepthChromaMinus8: UInt32
    public var width: Int
    public var height: Int

    /// Parses an SPS NAL unit (2-byte header included, emulation prevention still in place).
    public init<C: Collection>(nalUnit: C) throws(CodecError) where C.Element == UInt8 {
        let rbsp = BitReader.unescape(nalUnit)
        guard rbsp.count > 2, VideoCodec.hevc.nalUnitType(firstByte: rbsp[0]) == HEVCNALType.sps else {
            throw .malformedBitstream(structure: "H.265 SPS", detail: "NAL unit is not of type 33")
        }
        var reader = BitReader(rbsp: Array(rbsp.dropFirst(2)), structure: "H.265 SPS")
        try reader.skip(4) // sps_video_parameter_set_id
        maxSubLayersMinus1 = UInt8(try reader.bits(3))
        temporalIDNesting = try reader.flag()
        // profile_tier_level(1, sps_max_sub_layers_minus1), §7.3.3
        generalProfileSpace = UInt8(try reader.bits(2))
        generalTierFlag = try reader.flag()
        generalProfileIDC = UInt8(try reader.bits(5))
        generalProfileCompatibilityFlags = try reader.bits(32)
        generalConstraintIndicatorFlags = UInt64(try reader.bits(16)) << 32 | UInt64(try reader.bits(32))
        generalLevelIDC = UInt8(try reader.bits(8))
        var subLayerPresence = [(profile: Bool, level: Bool)]()
        for _ in 0..<maxSubLayersMinus1 { subLayerPresence.append((try reader.flag(), try reader.flag())) }
        if maxSubLayersMinus1 > 0 { try reader.skip(2 * (8 - Int(maxSubLayersMinus1))) }
        for presence in subLayerPresence {
            if presence.profile { try reader.skip(88) }
            if presence.level { try reader.skip(8) }
        }
        _ = try reader.unsignedExpGolomb() // sps_seq_parameter_set_id
        chromaFormatIDC = try reader.unsignedExpGolomb()
        if chromaFormatIDC == 3 { _ = try reader.flag() } // separate_colour_plane_flag
        let lumaWidth = Int(try reader.unsignedExpGolomb())
        let lumaHeight = Int(try reader.unsignedExpGolomb())
        var window = (left: 0, right: 0, top: 0, bottom: 0)
        if try reader.flag() {
            window = (Int(try reader.unsignedExpGolomb()), Int(try reader.unsignedExpGolomb()),
                      Int(try reader.unsignedExpGolomb()), Int(try reader.unsignedExpGolomb()))
        }
        bitDepthLumaMinus8 = try reader.unsignedExpGolomb()
        bitDepthChromaMinus8 = try reader.unsignedExpGolomb()
        // Table 6-1: conformance window offsets are in chroma sample units.
        let subWidth = chromaFormatIDC == 1 || chromaFormatIDC == 2 ? 2 : 1
        let subHeight = chromaFormatIDC == 1 ? 2 : 1
        width = lumaWidth - subWidth * (window.left + window.right)
        height = lumaHeight - subHeight * (window.top + window.bottom)
        guard width > 0, height > 0 else {
            throw .malformedBitstream(structure: "H.265 SPS", detail: "conformance window leaves \(width)x\(height)")
        }
    }
}
