import Codec
import NIOCore

extension EncodedVideoFrame {
    /// The NAL units as slices of `bytes`, a buffer that starts with a copy of ``data``: what an
    /// ``H264Payloader`` takes, sharing the copy's storage.
    func nalUnits(in bytes: ByteBuffer) -> [ByteBuffer] {
        nalUnitRanges.compactMap { bytes.getSlice(at: $0.lowerBound, length: $0.count) }
    }
}
