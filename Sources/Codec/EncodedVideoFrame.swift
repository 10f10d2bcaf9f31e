import MediaCore

/// One encoded access unit, as every output (RTMP, RTP/WebRTC, recording) consumes it.
///
/// The bytes are Annex-B (start code before every NAL unit) for H.264/H.265 and a sequence of
/// OBUs for AV1. ``nalUnitRanges`` index into ``data``, so the NAL unit views below share its
/// storage instead of copying payloads: an RTP payloader takes ``nalUnits`` slices, an RTMP/MP4
/// writer emits a 4-byte length then the same slice (``appendLengthPrefixed(to:)``).
///
/// Timestamps are the capture times the frame came with, on CLOCK_MONOTONIC in nanoseconds
/// (see ``VideoEncoder`` for how they pass through libavcodec).
public struct EncodedVideoFrame: Sendable {
    public var codec: VideoCodec
    public var data: [UInt8]
    /// Byte ranges of the NAL units in ``data``, start codes excluded (one range over all of it for AV1).
    public var nalUnitRanges: [Range<Int>]
    public var ptsNanos: Int64
    public var dtsNanos: Int64
    /// An IDR (H.264/H.265) or key frame (AV1): a decoder can start here.
    public var isKeyFrame: Bool
    /// The stream's current parameter sets (shared storage: attaching them copies nothing).
    public var parameterSets: ParameterSets
    /// How far the receiver must still turn the decoded picture clockwise to show it upright:
    /// the capture's rotation when the encoder passed it through (``VideoEncoderSettings/RotationHandling/passThrough``,
    /// for outputs that signal it, as WebRTC's video orientation does), `.none` when the pixels were turned.
    public var rotation: VideoRotation
    /// Which of the camera's renditions this frame belongs to: an index into the list an output that
    /// serves several got (``RenditionDescription``); 0 when the camera has one encode.
    public var rendition: Int = 0

    public init(codec: VideoCodec, data: [UInt8], nalUnitRanges: [Range<Int>], ptsNanos: Int64, dtsNanos: Int64,
                isKeyFrame: Bool, parameterSets: ParameterSets, rotation: VideoRotation = .none) {
        self.codec = codec
        self.data = data
        self.nalUnitRanges = nalUnitRanges
        self.ptsNanos = ptsNanos
        self.dtsNanos = dtsNanos
        self.isKeyFrame = isKeyFrame
        self.parameterSets = parameterSets
        self.rotation = rotation
    }

    /// The NAL units without start codes, as views into ``data``.
    public var nalUnits: [ArraySlice<UInt8>] { nalUnitRanges.map { data[$0] } }

    /// The NAL unit types in order (empty for AV1).
    public var nalUnitTypes: [UInt8] {
        codec.usesNALUnits ? nalUnitRanges.map { codec.nalUnitType(firstByte: data[$0.lowerBound]) } : []
    }

    /// Bytes of the length-prefixed (AVCC/HVCC, 4-byte lengths) form.
    public var lengthPrefixedSize: Int { nalUnitRanges.reduce(0) { $0 + $1.count + 4 } }

    /// Appends the length-prefixed form: per NAL unit a 4-byte big-endian length, then its bytes.
    public func appendLengthPrefixed(to out: inout [UInt8]) {
        out.reserveCapacity(out.count + lengthPrefixedSize)
        for range in nalUnitRanges {
            AnnexB.appendLength(range.count, to: &out)
            out.append(contentsOf: data[range])
        }
    }
}
