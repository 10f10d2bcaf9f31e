import Codec
import FuzzSupport

/// H.265 parameter sets from an Annex-B access unit: the NAL unit split, the SPS fields outputs
/// read (profile_tier_level, sub-layers, conformance window) and the hvcC record built from VPS,
/// SPS and PPS, which must not trap whatever the sets hold.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzHEVCSPS(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    _ = try? HEVCSPS(nalUnit: bytes)
    let ranges = AnnexB.nalUnitRanges(in: bytes)
    for range in ranges where bytes[range].first.map({ ($0 >> 1) & 0x3F }) == HEVCNALType.sps {
        _ = try? HEVCSPS(nalUnit: bytes[range])
    }
    let sets = ParameterSets(codec: .hevc, annexB: bytes, nalUnitRanges: ranges)
    _ = sets.pictureSize
    if let hvcC = try? sets.decoderConfigurationRecord() {
        fuzzRequire(hvcC.count >= 23, "hvcC of \(hvcC.count) bytes is shorter than its fixed part")
    }
    return 0
}

// Last: the globals above are initialised in order as top-level code runs, and this never returns.
runLibFuzzer(fuzzHEVCSPS)
