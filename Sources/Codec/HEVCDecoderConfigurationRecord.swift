/// The `hvcC` box body (ISO/IEC 14496-15 §8.3.3.1, "HEVCDecoderConfigurationRecord") for enhanced
/// RTMP and MP4, built from in-band VPS/SPS/PPS.
///
/// ```
/// configurationVersion = 1                                             u8
/// general_profile_space u2, general_tier_flag u1, general_profile_idc u5
/// general_profile_compatibility_flags                                  u32
/// general_constraint_indicator_flags                                   u48
/// general_level_idc                                                    u8
/// '1111'b + min_spatial_segmentation_idc u12   '111111'b + parallelismType u2
/// '111111'b + chromaFormat u2   '11111'b + bitDepthLumaMinus8 u3   '11111'b + bitDepthChromaMinus8 u3
/// avgFrameRate u16
/// constantFrameRate u2, numTemporalLayers u3, temporalIdNested u1, lengthSizeMinusOne u2
/// numOfArrays u8; per array: array_completeness u1, '0'b, NAL_unit_type u6, numNalus u16,
///   per NAL unit: u16 length, bytes
/// ```
/// array_completeness is 0 because livepush repeats the sets before every keyframe (sample entry `hev1`).
/// min_spatial_segmentation_idc and parallelismType would need the VUI; livepush writes 0
/// ("unknown"), which every demuxer accepts.
public struct HEVCDecoderConfigurationRecord: Sendable, Equatable {
    public var vps: [[UInt8]]
    public var sps: [[UInt8]]
    public var pps: [[UInt8]]
    public let parsedSPS: HEVCSPS

    public init(vps: [[UInt8]], sps: [[UInt8]], pps: [[UInt8]]) throws(CodecError) {
        guard !vps.isEmpty, let first = sps.first, !pps.isEmpty else {
            throw .malformedBitstream(structure: "HEVCDecoderConfigurationRecord", detail: "needs a VPS, an SPS and a PPS")
        }
        guard (vps + sps + pps).allSatisfy({ $0.count <= Int(UInt16.max) }) else {
            throw .malformedBitstream(structure: "HEVCDecoderConfigurationRecord", detail: "parameter set longer than 65535 bytes")
        }
        parsedSPS = try HEVCSPS(nalUnit: first)
        self.vps = vps
        self.sps = sps
        self.pps = pps
    }

    public var bytes: [UInt8] {
        let s = parsedSPS
        var out: [UInt8] = [1, s.generalProfileSpace << 6 | (s.generalTierFlag ? 0x20 : 0) | s.generalProfileIDC]
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: s.generalProfileCompatibilityFlags >> UInt32(shift))) }
        for shift in stride(from: 40, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: s.generalConstraintIndicatorFlags >> UInt64(shift))) }
        out.append(s.generalLevelIDC)
        out += [0xF0, 0x00, 0xFC]
        out.append(0xFC | UInt8(s.chromaFormatIDC & 3))
        out.append(0xF8 | UInt8(s.bitDepthLumaMinus8 & 7))
        out.append(0xF8 | UInt8(s.bitDepthChromaMinus8 & 7))
        out += [0, 0]
        out.append((s.maxSubLayersMinus1 + 1) << 3 | (s.temporalIDNesting ? 0x04 : 0) | 3)
        let arrays: [(UInt8, [[UInt8]])] = [(HEVCNALType.vps, vps), (HEVCNALType.sps, sps), (HEVCNALType.pps, pps)]
        out.append(UInt8(arrays.count))
        for (type, units) in arrays {
            // array_completeness = 0: the sets are repeated in band too (as FFmpeg writes for `hev1`).
            out.append(type)
            out.append(UInt8(units.count >> 8))
            out.append(UInt8(truncatingIfNeeded: units.count))
            for unit in units {
                out.append(UInt8(unit.count >> 8))
                out.append(UInt8(truncatingIfNeeded: unit.count))
                out.append(contentsOf: unit)
            }
        }
        return out
    }
}
