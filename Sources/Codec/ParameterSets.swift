/// A stream's parameter sets (H.264 SPS/PPS, H.265 VPS/SPS/PPS, NAL units without start codes;
/// AV1's sequence header OBU).
///
/// Outputs that carry them out of band (RTMP's sequence header, MP4's sample entry, SDP's
/// `sprop-parameter-sets`) take them from here; the encoder also repeats them in band on keyframes.
public struct ParameterSets: Sendable, Equatable {
    public var codec: VideoCodec
    public var vps: [[UInt8]]
    public var sps: [[UInt8]]
    public var pps: [[UInt8]]
    /// AV1: the sequence header OBU as the encoder wrote it (header, size field, payload); empty until seen.
    public var av1SequenceHeader: [UInt8]

    public init(codec: VideoCodec, vps: [[UInt8]] = [], sps: [[UInt8]] = [], pps: [[UInt8]] = []) {
        self.codec = codec
        self.vps = vps
        self.sps = sps
        self.pps = pps
        av1SequenceHeader = []
    }

    /// True when a decoder could start from these.
    public var isComplete: Bool {
        switch codec {
        case .h264: return !sps.isEmpty && !pps.isEmpty
        case .hevc: return !vps.isEmpty && !sps.isEmpty && !pps.isEmpty
        case .av1: return !av1SequenceHeader.isEmpty
        }
    }

    /// The sequence header among an AV1 temporal unit's OBUs (empty sets when it has none).
    public init(av1TemporalUnit bytes: [UInt8]) throws(CodecError) {
        self.init(codec: .av1)
        if let obu = try AV1OBU.obus(in: bytes).first(where: { $0.type == AV1OBUType.sequenceHeader }) {
            av1SequenceHeader = Array(bytes[obu.range])
        }
    }

    /// The parameter sets found among an Annex-B access unit's NAL units (empty when it has none).
    public init(codec: VideoCodec, annexB bytes: [UInt8], nalUnitRanges ranges: [Range<Int>]) {
        self.init(codec: codec)
        for range in ranges {
            let type = codec.nalUnitType(firstByte: bytes[range.lowerBound])
            switch (codec, type) {
            case (.h264, H264NALType.sps), (.hevc, HEVCNALType.sps): sps.append(Array(bytes[range]))
            case (.h264, H264NALType.pps), (.hevc, HEVCNALType.pps): pps.append(Array(bytes[range]))
            case (.hevc, HEVCNALType.vps): vps.append(Array(bytes[range]))
            default: continue
            }
        }
    }

    /// The sets as one Annex-B blob, VPS first (to prepend to a keyframe that lacks them).
    public var annexB: [UInt8] { AnnexB.join(vps + sps + pps) }

    /// avcC (H.264), hvcC (H.265) or av1C (AV1) bytes for RTMP/MP4; nil while AV1's sequence header is missing.
    public func decoderConfigurationRecord() throws(CodecError) -> [UInt8]? {
        switch codec {
        case .h264: return try AVCDecoderConfigurationRecord(sps: sps, pps: pps).bytes
        case .hevc: return try HEVCDecoderConfigurationRecord(vps: vps, sps: sps, pps: pps).bytes
        case .av1: return av1SequenceHeader.isEmpty ? nil : try AV1CodecConfigurationRecord(sequenceHeaderOBU: av1SequenceHeader).bytes
        }
    }
}
