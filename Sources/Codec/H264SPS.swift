/// The fields of an H.264 sequence parameter set (H.264 §7.3.2.1.1) that outputs need: profile,
/// constraint flags and level (for avcC, SDP `profile-level-id`), and the cropped picture size.
public struct H264SPS: Sendable, Equatable {
    public var profileIDC: UInt8
    /// constraint_set0_flag … constraint_set5_flag and the two reserved bits, as one byte.
    public var constraintFlags: UInt8
    public var levelIDC: UInt8
    public var chromaFormatIDC: UInt32
    public var bitDepthLumaMinus8: UInt32
    public var bitDepthChromaMinus8: UInt32
    public var width: Int
    public var height: Int

    /// Profiles whose SPS carries chroma format, bit depth and scaling lists (§7.3.2.1.1).
    static let highProfiles: Set<UInt8> = [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]

    /// Parses an SPS NAL unit (header byte included, emulation prevention still in place).
    public init<C: Collection>(nalUnit: C) throws(CodecError) where C.Element == UInt8 {
        let rbsp = BitReader.unescape(nalUnit)
        guard let header = rbsp.first, header & 0x1F == H264NALType.sps else {
            throw .malformedBitstream(structure: "H.264 SPS", detail: "NAL unit is not of type 7")
        }
        var reader = BitReader(rbsp: Array(rbsp.dropFirst()), structure: "H.264 SPS")
        profileIDC = UInt8(try reader.bits(8))
        constraintFlags = UInt8(try reader.bits(8))
        levelIDC = UInt8(try reader.bits(8))
        _ = try reader.unsignedExpGolomb() // seq_parameter_set_id
        chromaFormatIDC = 1
        bitDepthLumaMinus8 = 0
        bitDepthChromaMinus8 = 0
        var separateColourPlane = false
        if Self.highProfiles.contains(profileIDC) {
            chromaFormatIDC = try reader.unsignedExpGolomb()
            if chromaFormatIDC == 3 { separateColourPlane = try reader.flag() }
            bitDepthLumaMinus8 = try reader.unsignedExpGolomb()
            bitDepthChromaMinus8 = try reader.unsignedExpGolomb()
            _ = try reader.flag() // qpprime_y_zero_transform_bypass_flag
            if try reader.flag() { // seq_scaling_matrix_present_flag
                for list in 0..<(chromaFormatIDC == 3 ? 12 : 8) where try reader.flag() {
                    try Self.skipScalingList(size: list < 6 ? 16 : 64, reader: &reader)
                }
            }
        }
        _ = try reader.unsignedExpGolomb() // log2_max_frame_num_minus4
        let pocType = try reader.unsignedExpGolomb()
        if pocType == 0 {
            _ = try reader.unsignedExpGolomb() // log2_max_pic_order_cnt_lsb_minus4
        } else if pocType == 1 {
            _ = try reader.flag() // delta_pic_order_always_zero_flag
            _ = try reader.signedExpGolomb() // offset_for_non_ref_pic
            _ = try reader.signedExpGolomb() // offset_for_top_to_bottom_field
            let cycle = try reader.unsignedExpGolomb()
            guard cycle <= 255 else {
                throw .malformedBitstream(structure: "H.264 SPS", detail: "num_ref_frames_in_pic_order_cnt_cycle \(cycle) > 255")
            }
            for _ in 0..<cycle { _ = try reader.signedExpGolomb() }
        }
        _ = try reader.unsignedExpGolomb() // max_num_ref_frames
        _ = try reader.flag() // gaps_in_frame_num_value_allowed_flag
        let widthInMBs = Int(try reader.unsignedExpGolomb()) + 1
        let heightInMapUnits = Int(try reader.unsignedExpGolomb()) + 1
        let frameMBsOnly = try reader.flag()
        if !frameMBsOnly { _ = try reader.flag() } // mb_adaptive_frame_field_flag
        _ = try reader.flag() // direct_8x8_inference_flag
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        if try reader.flag() {
            crop = (Int(try reader.unsignedExpGolomb()), Int(try reader.unsignedExpGolomb()),
                    Int(try reader.unsignedExpGolomb()), Int(try reader.unsignedExpGolomb()))
        }
        // Table 6-1 and equations 7-19/7-20: crop units depend on the chroma subsampling.
        let chromaArrayType = separateColourPlane ? 0 : chromaFormatIDC
        let fieldFactor = frameMBsOnly ? 1 : 2
        let cropUnitX = chromaArrayType == 0 || chromaArrayType == 3 ? 1 : 2
        let cropUnitY = (chromaArrayType == 1 ? 2 : 1) * fieldFactor
        width = widthInMBs * 16 - cropUnitX * (crop.left + crop.right)
        height = heightInMapUnits * 16 * fieldFactor - cropUnitY * (crop.top + crop.bottom)
        guard width > 0, height > 0 else {
            throw .malformedBitstream(structure: "H.264 SPS", detail: "cropping leaves \(width)x\(height)")
        }
    }

    /// Profile, constraint flags and level as the 6 hex digits of SDP's `profile-level-id` (RFC 6184 §8.1).
    public var profileLevelID: String {
        [profileIDC, constraintFlags, levelIDC].map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    /// scaling_list() of §7.3.2.1.1.1, read only to get past it.
    private static func skipScalingList(size: Int, reader: inout BitReader) throws(CodecError) {
        var last: Int32 = 8, next: Int32 = 8
        for _ in 0..<size {
            if next != 0 {
                // delta_scale is −128…127 (§7.4.2.1.1.1); a larger one overflowed the sum below.
                let delta = try reader.signedExpGolomb()
                guard (-128...127).contains(delta) else {
                    throw .malformedBitstream(structure: reader.structure, detail: "delta_scale \(delta) is outside -128…127")
                }
                next = (last + delta + 256) % 256
            }
            last = next == 0 ? last : next
        }
    }
}
