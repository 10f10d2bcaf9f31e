/// The fields of an AV1 `sequence_header_obu()` (AV1 §5.5) that the AV1CodecConfigurationRecord
/// and a receiver's set-up need, read up to the end of `color_config()`.
///
/// ```
/// seq_profile f(3), still_picture f(1), reduced_still_picture_header f(1)
/// reduced: seq_level_idx[0] f(5)
/// else:    timing_info_present_flag f(1) [timing_info(), decoder_model_info_present_flag f(1) [decoder_model_info()]]
///          initial_display_delay_present_flag f(1), operating_points_cnt_minus_1 f(5)
///          per point: operating_point_idc f(12), seq_level_idx f(5), [seq_tier f(1) if level > 7],
///                     [decoder_model_present f(1) [operating_parameters_info()]],
///                     [initial_display_delay_present f(1) [initial_display_delay_minus_1 f(4)]]
/// frame_width_bits_minus_1 f(4), frame_height_bits_minus_1 f(4), max_frame_width_minus_1 f(n), max_frame_height_minus_1 f(n)
/// [frame_id_numbers_present_flag f(1) [delta_frame_id_length_minus_2 f(4), additional_frame_id_length_minus_1 f(3)]]
/// use_128x128_superblock, enable_filter_intra, enable_intra_edge_filter f(1) each
/// [not reduced: compound/warp/dual-filter/order-hint tools, screen-content and integer-mv choices, order_hint_bits_minus_1]
/// enable_superres, enable_cdef, enable_restoration f(1) each
/// color_config(): high_bitdepth, [twelve_bit], [mono_chrome], color description, color_range, subsampling, chroma_sample_position
/// ```
public struct AV1SequenceHeader: Sendable, Hashable {
    public var seqProfile: UInt8
    /// Level and tier of operating point 0, the one the record describes.
    public var seqLevelIdx0: UInt8
    public var seqTier0: UInt8
    public var maxFrameWidth: Int
    public var maxFrameHeight: Int
    public var highBitDepth: Bool
    public var twelveBit: Bool
    public var monochrome: Bool
    public var chromaSubsamplingX: Bool
    public var chromaSubsamplingY: Bool
    /// CSP_UNKNOWN (0), CSP_VERTICAL (1) or CSP_COLOCATED (2); 0 unless 4:2:0.
    public var chromaSamplePosition: UInt8

    static let structure = "AV1 sequence header"
    /// `seq_tier` is coded only above level 3.3 (seq_level_idx 7).
    static let highestLevelWithoutTier: UInt32 = 7
    /// color_config's sRGB special case: BT.709 primaries, sRGB transfer, identity matrix (4:4:4).
    static let primariesBT709: UInt32 = 1, transferSRGB: UInt32 = 13, matrixIdentity: UInt32 = 0

    /// Parses the payload of a sequence header OBU (the bytes after its header and size field).
    public init(payload: [UInt8]) throws(CodecError) {
        var reader = BitReader(rbsp: payload, structure: Self.structure)
        seqProfile = UInt8(try reader.bits(3))
        guard seqProfile <= 2 else {
            throw .malformedBitstream(structure: Self.structure, detail: "seq_profile \(seqProfile) (0, 1 or 2)")
        }
        try reader.skip(1)  // still_picture
        let reducedStillPictureHeader = try reader.flag()
        if reducedStillPictureHeader {
            seqLevelIdx0 = UInt8(try reader.bits(5))
            seqTier0 = 0
        } else {
            (seqLevelIdx0, seqTier0) = try Self.readOperatingPoints(&reader)
        }
        let widthBits = Int(try reader.bits(4)) + 1
        let heightBits = Int(try reader.bits(4)) + 1
        maxFrameWidth = Int(try reader.bits(widthBits)) + 1
        maxFrameHeight = Int(try reader.bits(heightBits)) + 1
        if !reducedStillPictureHeader, try reader.flag() {  // frame_id_numbers_present_flag
            try reader.skip(4 + 3)
        }
        try reader.skip(3)  // use_128x128_superblock, enable_filter_intra, enable_intra_edge_filter
        if !reducedStillPictureHeader {
            try Self.skipInterTools(&reader)
        }
        try reader.skip(3)  // enable_superres, enable_cdef, enable_restoration
        // color_config() (§5.5.2)
        highBitDepth = try reader.flag()
        twelveBit = try seqProfile == 2 && highBitDepth ? reader.flag() : false
        monochrome = try seqProfile == 1 ? false : reader.flag()
        var primaries: UInt32 = 2, transfer: UInt32 = 2, matrix: UInt32 = 2  // CP/TC/MC_UNSPECIFIED
        if try reader.flag() {  // color_description_present_flag
            primaries = try reader.bits(8)
            transfer = try reader.bits(8)
            matrix = try reader.bits(8)
        }
        chromaSamplePosition = 0
        if monochrome {
            try reader.skip(1)  // color_range
            (chromaSubsamplingX, chromaSubsamplingY) = (true, true)
            return
        }
        if primaries == Self.primariesBT709, transfer == Self.transferSRGB, matrix == Self.matrixIdentity {
            (chromaSubsamplingX, chromaSubsamplingY) = (false, false)
            return
        }
        try reader.skip(1)  // color_range
        switch seqProfile {
        case 0: (chromaSubsamplingX, chromaSubsamplingY) = (true, true)
        case 1: (chromaSubsamplingX, chromaSubsamplingY) = (false, false)
        default:
            if twelveBit {
                chromaSubsamplingX = try reader.flag()
                chromaSubsamplingY = try chromaSubsamplingX ? reader.flag() : false
            } else {
                (chromaSubsamplingX, chromaSubsamplingY) = (true, false)
            }
        }
        if chromaSubsamplingX && chromaSubsamplingY {
            chromaSamplePosition = UInt8(try reader.bits(2))
        }
    }

    /// timing_info, decoder model and operating points; returns operating point 0's level and tier.
    private static func readOperatingPoints(_ reader: inout BitReader) throws(CodecError) -> (level: UInt8, tier: UInt8) {
        var bufferDelayLength = 0
        var decoderModelInfoPresent = false
        if try reader.flag() {  // timing_info_present_flag: timing_info() (§5.5.3)
            try reader.skip(32 + 32)  // num_units_in_display_tick, time_scale
            if try reader.flag() {  // equal_picture_interval
                // num_ticks_per_picture_minus_1: uvlc(), coded as ue(v); 32 leading zeros or more (2^32 - 1,
                // which no encoder writes) is refused as malformed.
                _ = try reader.unsignedExpGolomb()
            }
            decoderModelInfoPresent = try reader.flag()
            if decoderModelInfoPresent {  // decoder_model_info() (§5.5.4)
                bufferDelayLength = Int(try reader.bits(5)) + 1
                try reader.skip(32 + 5 + 5)
            }
        }
        let initialDisplayDelayPresent = try reader.flag()
        let count = Int(try reader.bits(5)) + 1
        var first: (level: UInt8, tier: UInt8)?
        for _ in 0..<count {
            try reader.skip(12)  // operating_point_idc
            let level = try reader.bits(5)
            let tier = try level > highestLevelWithoutTier ? reader.bits(1) : 0
            if first == nil { first = (UInt8(level), UInt8(tier)) }
            if decoderModelInfoPresent, try reader.flag() {  // operating_parameters_info() (§5.5.5)
                try reader.skip(2 * bufferDelayLength + 1)
            }
            if initialDisplayDelayPresent, try reader.flag() {
                try reader.skip(4)
            }
        }
        return first ?? (0, 0)
    }

    /// The inter-prediction tool flags of a full sequence header, up to order_hint_bits_minus_1.
    private static func skipInterTools(_ reader: inout BitReader) throws(CodecError) {
        try reader.skip(4)  // interintra compound, masked compound, warped motion, dual filter
        let enableOrderHint = try reader.flag()
        if enableOrderHint {
            try reader.skip(2)  // jnt_comp, ref_frame_mvs
        }
        let chooseScreenContentTools = try reader.flag()
        let forceScreenContentTools = try chooseScreenContentTools ? true : reader.flag()
        if forceScreenContentTools, !(try reader.flag()) {  // seq_choose_integer_mv
            try reader.skip(1)  // seq_force_integer_mv
        }
        if enableOrderHint {
            try reader.skip(3)  // order_hint_bits_minus_1
        }
    }
}
