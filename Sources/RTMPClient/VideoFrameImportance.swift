import Codec

/// How much the rest of the stream depends on a frame, which decides the order frames are dropped in
/// when the link cannot keep up: non-reference frames first (nothing points at them), then whole GOP tails.
public enum VideoFrameImportance: Sendable, Hashable {
    /// A decoder can start here.
    case key
    /// Later frames may predict from it: dropping it breaks everything up to the next keyframe.
    case reference
    /// Nothing predicts from it (e.g. a non-reference B-frame): safe to drop alone.
    case nonReference

    /// H.264: every slice NAL unit has nal_ref_idc 0 (§7.4.1). H.265: every VCL NAL unit is a sub-layer
    /// non-reference type (even types below 16, Table 7-1). AV1 frames are treated as references.
    public init(_ frame: EncodedVideoFrame) {
        if frame.isKeyFrame {
            self = .key
            return
        }
        var sawPicture = false
        for range in frame.nalUnitRanges where !range.isEmpty {
            let header = frame.data[range.lowerBound]
            let type = frame.codec.nalUnitType(firstByte: header)
            switch frame.codec {
            case .h264:
                guard (H264NALType.nonIDRSlice...H264NALType.idrSlice).contains(type) else { continue }
                sawPicture = true
                if header & Self.h264RefIDCMask != 0 { self = .reference; return }
            case .hevc:
                guard type < Self.hevcFirstNonVCLType else { continue }
                sawPicture = true
                if type >= Self.hevcFirstIRAPType || type % 2 == 1 { self = .reference; return }
            case .av1:
                self = .reference
                return
            }
        }
        self = sawPicture ? .nonReference : .reference
    }

    static let h264RefIDCMask: UInt8 = 0x60
    static let hevcFirstIRAPType: UInt8 = 16
    static let hevcFirstNonVCLType: UInt8 = 32
}
