/// FLV `FrameType` (FLV spec §E.4.3.1; enhanced RTMP keeps the values in 3 bits).
public enum FLVVideoFrameType: UInt8, Sendable, Hashable, CaseIterable {
    /// A keyframe (IDR for AVC): decoding can start here.
    case key = 1
    case inter = 2
    /// H.263 only.
    case disposableInter = 3
    /// Server-generated keyframe.
    case generatedKey = 4
    /// Video info/command frame: carries no picture.
    case command = 5
}
