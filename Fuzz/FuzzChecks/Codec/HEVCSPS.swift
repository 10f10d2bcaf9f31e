import Codec
import FuzzCore

/// H.265 parameter sets from an Annex-B access unit: the NAL unit split, the SPS fields outputs
/// read (profile_tier_level, sub-layers, conformance window) and the hvcC record built from VPS,
/// SPS and PPS, which must not trap whatever the sets hold.
func checkHEVCSPS(_ bytes: [UInt8]) throws(FuzzInvariantBroken) {
    _ = try? HEVCSPS(nalUnit: bytes)
    let ranges = AnnexB.nalUnitRanges(in: bytes)
    for range in ranges where bytes[range].first.map({ ($0 >> 1) & 0x3F }) == HEVCNALType.sps {
        _ = try? HEVCSPS(nalUnit: bytes[range])
    }
    let sets = ParameterSets(codec: .hevc, annexB: bytes, nalUnitRanges: ranges)
    _ = sets.pictureSize
    if let hvcC = try? sets.decoderConfigurationRecord() {
        try fuzzRequire(hvcC.count >= 23, "hvcC of \(hvcC.count) bytes is shorter than its fixed part")
    }
    return
}

extension FuzzTarget {
    public static let hevcSPS = FuzzTarget(name: "FuzzHEVCSPS", check: checkHEVCSPS)
}
