extension ParameterSets {
    /// The coded picture size the first SPS declares (cropping applied), nil without a readable
    /// H.264/H.265 SPS (and for AV1). Outputs that announce a size — RTMP's onMetaData, MP4's track
    /// header — read it here, since a CPU-adaptation step changes it mid-stream.
    public var pictureSize: (width: Int, height: Int)? {
        guard let sps = sps.first else { return nil }
        switch codec {
        case .h264: return (try? H264SPS(nalUnit: sps)).map { ($0.width, $0.height) }
        case .hevc: return (try? HEVCSPS(nalUnit: sps)).map { ($0.width, $0.height) }
        case .av1: return nil
        }
    }
}
