/// Finds livepush's capture-time SEI (``CaptureTimeSEI``) in the packets a demuxer hands out, in
/// either framing (``NALUnitFraming``), for `livepush probe` and any other receiver that reads
/// every frame. It keeps one buffer for the unescaped SEI bytes, so steady state allocates nothing.
public struct CaptureTimeSEIReader: Sendable {
    public let codec: VideoCodec
    public let framing: NALUnitFraming
    private var rbsp: [UInt8] = []

    public init(codec: VideoCodec, framing: NALUnitFraming) {
        self.codec = codec
        self.framing = framing
        rbsp.reserveCapacity(64)
    }

    /// The capture time in one access unit's packet: the first SEI NAL unit that holds our message
    /// (other SEI, such as x264's version string, are skipped), or nil when there is none.
    public mutating func captureTime(inPacket packet: UnsafeRawBufferPointer) -> CaptureTimeSEI? {
        let seiType = codec == .h264 ? H264NALType.sei : HEVCNALType.prefixSEI
        let codec = codec
        var found: CaptureTimeSEI?
        var rbsp = self.rbsp
        self.rbsp = []
        defer { self.rbsp = rbsp }
        framing.forEachNALUnit(in: packet) { unit in
            guard found == nil, codec.nalUnitType(firstByte: unit[0]) == seiType else { return }
            found = CaptureTimeSEI.parse(nalUnit: unit, codec: codec, rbsp: &rbsp)
        }
        return found
    }
}
