/// The `av1C` box body (AV1 Codec ISO Media File Format Binding §2.3.3, "AV1CodecConfigurationRecord")
/// for enhanced RTMP's `av01` SequenceStart and MP4, built from the encoder's sequence header OBU.
///
/// ```
/// marker u1 = 1 | version u7 = 1
/// seq_profile u3 | seq_level_idx_0 u5
/// seq_tier_0 u1 | high_bitdepth u1 | twelve_bit u1 | monochrome u1 |
///   chroma_subsampling_x u1 | chroma_subsampling_y u1 | chroma_sample_position u2
/// reserved u3 = 0 | initial_presentation_delay_present u1 | initial_presentation_delay_minus_one u4 (or reserved 0)
/// configOBUs: the sequence header OBU, in the low-overhead format (obu_has_size_field = 1)
/// ```
/// initial_presentation_delay is left out (present = 0): the encoder runs in low-delay mode and
/// says nothing about it, as FFmpeg's muxers also write.
public struct AV1CodecConfigurationRecord: Sendable, Equatable {
    /// The sequence header OBU as it goes into configOBUs: header with a size field, then the payload.
    public let sequenceHeaderOBU: [UInt8]
    public let sequenceHeader: AV1SequenceHeader

    static let markerAndVersion: UInt8 = 0x81
    static let structure = "AV1CodecConfigurationRecord"

    /// From one OBU (header, optional size field, payload) of type OBU_SEQUENCE_HEADER.
    public init(sequenceHeaderOBU obu: [UInt8]) throws(CodecError) {
        let obus = try AV1OBU.obus(in: obu)
        guard obus.count == 1, let only = obus.first else {
            throw .malformedBitstream(structure: Self.structure, detail: "needs exactly one OBU, got \(obus.count)")
        }
        guard only.type == AV1OBUType.sequenceHeader else {
            throw .malformedBitstream(structure: Self.structure, detail: "OBU type \(only.type) is not a sequence header (1)")
        }
        let payload = Array(obu[only.payloadRange])
        sequenceHeader = try AV1SequenceHeader(payload: payload)
        // The low-overhead format needs the size field; an OBU without one gets it here.
        var normalised = Array(obu[0..<(obu[0] & AV1OBU.extensionFlag != 0 ? 2 : 1)])
        normalised[0] |= AV1OBU.hasSizeFieldFlag
        AV1OBU.appendLEB128(payload.count, to: &normalised)
        sequenceHeaderOBU = normalised + payload
    }

    public var bytes: [UInt8] {
        let s = sequenceHeader
        func bit(_ flag: Bool, _ shift: UInt8) -> UInt8 { flag ? 1 << shift : 0 }
        let flags = s.seqTier0 << 7 | bit(s.highBitDepth, 6) | bit(s.twelveBit, 5) | bit(s.monochrome, 4)
            | bit(s.chromaSubsamplingX, 3) | bit(s.chromaSubsamplingY, 2) | (s.chromaSamplePosition & 3)
        return [Self.markerAndVersion, s.seqProfile << 5 | (s.seqLevelIdx0 & 0x1F), flags, 0] + sequenceHeaderOBU
    }
}
