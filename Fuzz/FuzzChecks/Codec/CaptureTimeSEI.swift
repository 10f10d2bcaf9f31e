import Codec
import FuzzCore

/// The capture-time SEI as `livepush probe` or any reader meets it in a received access unit: the
/// first input byte picks the codec (even: H.264, odd: H.265), the rest is one NAL unit without a
/// start code. A capture time read from it must write back to a SEI that reads as the same time.
func checkCaptureTimeSEI(_ input: [UInt8]) throws(FuzzInvariantBroken) {
    guard let selector = input.first else { return }
    let codec: VideoCodec = selector & 1 == 0 ? .h264 : .hevc
    guard let sei = CaptureTimeSEI.parse(nalUnit: input.dropFirst(), codec: codec) else { return }
    try fuzzRequireRoundTrip(sei, encode: { value in
        var unit: [UInt8] = []
        value.appendNALUnit(for: codec, to: &unit)
        return unit
    }, decode: { unit in
        guard let read = CaptureTimeSEI.parse(nalUnit: unit, codec: codec) else { throw OwnSEIUnreadable() }
        return read
    })
}

/// Our own SEI, written from a parsed time, did not parse again.
private struct OwnSEIUnreadable: Error {}

extension FuzzTarget {
    public static let captureTimeSEI = FuzzTarget(name: "FuzzCaptureTimeSEI", check: checkCaptureTimeSEI)
}
