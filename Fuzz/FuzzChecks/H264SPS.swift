import Codec
import FuzzSupport

/// H.264 parameter sets as an encoder's or a file's Annex-B access unit carries them: the NAL unit
/// split, the SPS fields outputs read (profile, level, cropped size, with exp-Golomb and scaling
/// lists), and the avcC record RTMP and MP4 need, which must parse back to the same sets.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzH264SPS(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzInput.bytes(data, size)
    _ = try? H264SPS(nalUnit: bytes)
    if let record = try? AVCDecoderConfigurationRecord(bytes: bytes) {
        fuzzRequireRoundTrip(record, encode: \.bytes, decode: AVCDecoderConfigurationRecord.init(bytes:))
    }
    let ranges = AnnexB.nalUnitRanges(in: bytes)
    for range in ranges where bytes[range].first.map({ $0 & 0x1F }) == H264NALType.sps {
        _ = try? H264SPS(nalUnit: bytes[range])
    }
    let sets = ParameterSets(codec: .h264, annexB: bytes, nalUnitRanges: ranges)
    _ = sets.pictureSize
    if let avcC = try? sets.decoderConfigurationRecord() {
        let parsed = try? AVCDecoderConfigurationRecord(bytes: avcC)
        fuzzRequire(parsed?.sps == sets.sps && parsed?.pps == sets.pps, "avcC does not read back the sets it was built from")
    }
    return 0
}

// Last: the globals above are initialised in order as top-level code runs, and this never returns.
runLibFuzzer(fuzzH264SPS)
