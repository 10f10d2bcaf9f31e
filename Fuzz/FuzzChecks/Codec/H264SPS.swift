import Codec
import FuzzCore

/// H.264 parameter sets as an encoder's or a file's Annex-B access unit carries them: the NAL unit
/// split, the SPS fields outputs read (profile, level, cropped size, with exp-Golomb and scaling
/// lists), and the avcC record RTMP and MP4 need, which must parse back to the same sets.
func checkH264SPS(_ bytes: [UInt8]) throws(FuzzInvariantBroken) {
    _ = try? H264SPS(nalUnit: bytes)
    if let record = try? AVCDecoderConfigurationRecord(bytes: bytes) {
        try fuzzRequireRoundTrip(record, encode: \.bytes, decode: AVCDecoderConfigurationRecord.init(bytes:))
    }
    let ranges = AnnexB.nalUnitRanges(in: bytes)
    for range in ranges where bytes[range].first.map({ $0 & 0x1F }) == H264NALType.sps {
        _ = try? H264SPS(nalUnit: bytes[range])
    }
    let sets = ParameterSets(codec: .h264, annexB: bytes, nalUnitRanges: ranges)
    _ = sets.pictureSize
    if let avcC = try? sets.decoderConfigurationRecord() {
        let parsed = try? AVCDecoderConfigurationRecord(bytes: avcC)
        try fuzzRequire(parsed?.sps == sets.sps && parsed?.pps == sets.pps, "avcC does not read back the sets it was built from")
    }
    return
}

extension FuzzTarget {
    public static let h264SPS = FuzzTarget(name: "FuzzH264SPS", check: checkH264SPS)
}
