import FuzzSupport
import NIOCore
import RTMP

/// FLV tag bodies, legacy and enhanced RTMP (ExVideoTagHeader with FourCC), video and audio, and the
/// length-prefixed NAL units inside coded frames. Whatever parses must re-encode to the same tag, in
/// exactly `encodedSize` bytes.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzFLVTag(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput.byteBuffer(data, size)
    var video = input
    if let tag = try? FLVVideoTag(from: &video) {
        fuzzRequireWireRoundTrip(tag, encodedSize: tag.encodedSize) { $0.write(to: &$1) } decode: { try FLVVideoTag(from: &$0) }
    }
    var audio = input
    if let tag = try? FLVAudioTag(from: &audio) {
        fuzzRequireWireRoundTrip(tag, encodedSize: tag.encodedSize) { $0.write(to: &$1) } decode: { try FLVAudioTag(from: &$0) }
    }
    if let units = try? FLVVideoPacket.nalUnits(in: input) {
        let total = units.reduce(0) { $0 + FLVVideoPacket.nalUnitLengthSize + $1.readableBytes }
        fuzzRequire(total <= input.readableBytes, "NAL units span \(total) bytes of \(input.readableBytes)")
    }
    return 0
}

// Last: the globals above are initialised in order as top-level code runs, and this never returns.
runLibFuzzer(fuzzFLVTag)
