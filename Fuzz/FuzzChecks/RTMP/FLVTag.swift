import FuzzCore
import NIOCore
import RTMP

/// FLV tag bodies, legacy and enhanced RTMP (ExVideoTagHeader with FourCC), video and audio, and the
/// length-prefixed NAL units inside coded frames. Whatever parses must re-encode to the same tag, in
/// exactly `encodedSize` bytes.
func checkFLVTag(_ bytes: [UInt8]) throws(FuzzInvariantBroken) {
    let input = FuzzInput.byteBuffer(bytes)
    var video = input
    if let tag = try? FLVVideoTag(from: &video) {
        try fuzzRequireWireRoundTrip(tag, encodedSize: tag.encodedSize) { $0.write(to: &$1) } decode: { try FLVVideoTag(from: &$0) }
    }
    var audio = input
    if let tag = try? FLVAudioTag(from: &audio) {
        try fuzzRequireWireRoundTrip(tag, encodedSize: tag.encodedSize) { $0.write(to: &$1) } decode: { try FLVAudioTag(from: &$0) }
    }
    if let units = try? FLVVideoPacket.nalUnits(in: input) {
        let total = units.reduce(0) { $0 + FLVVideoPacket.nalUnitLengthSize + $1.readableBytes }
        try fuzzRequire(total <= input.readableBytes, "NAL units span \(total) bytes of \(input.readableBytes)")
    }
    return
}

extension FuzzTarget {
    public static let flvTag = FuzzTarget(name: "FuzzFLVTag", check: checkFLVTag)
}
