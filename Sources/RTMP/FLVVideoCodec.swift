/// How a video tag names its codec: legacy `CodecID` 7 (AVC), an enhanced-RTMP FourCC, or another legacy id.
public enum FLVVideoCodec: Sendable, Hashable {
    /// Legacy AVC (FLV spec §E.4.3.1, CodecID 7), what every RTMP server accepts.
    case avc
    /// Enhanced RTMP: `hvc1`, `av01`, `vp09`, or `avc1`.
    case fourCC(FourCC)
    /// Another legacy CodecID (Sorenson, VP6, …); its body is kept raw.
    case legacy(codecID: UInt8)

    /// Legacy CodecID of AVC.
    static let avcCodecID: UInt8 = 7
}
