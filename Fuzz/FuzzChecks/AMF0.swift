import FuzzSupport
import NIOCore
import RTMP

/// AMF0 as it arrives in RTMP command and data messages: values, whole commands and `onMetaData`.
/// Encoding normalises (ECMA array counts, long strings), so the check is that encoding a decoded
/// value gives bytes that decode and encode to themselves; `Double` NaNs make value equality unusable.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzAMF0(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = FuzzInput.byteBuffer(data, size)
    var values = input
    if let decoded = try? AMF0Value.decodeAll(from: &values) {
        for value in decoded { requireFixpoint(value, decode: AMF0Value.init(from:)) }
    }
    var command = input
    if let decoded = try? RTMPCommand(from: &command) {
        requireFixpoint(decoded, decode: RTMPCommand.init(from:))
        _ = RTMPServerCommand(decoded)
    }
    var metadata = input
    if let decoded = try? FLVMetadata(from: &metadata) {
        requireFixpoint(decoded, decode: FLVMetadata.init(from:))
    }
    return 0
}

/// Encoding `value`, decoding that and encoding again must give the first bytes back.
func requireFixpoint<Value: RTMPWritable>(_ value: Value, decode: (inout ByteBuffer) throws(RTMPError) -> Value) {
    var first = ByteBuffer()
    value.write(to: &first)
    var reread = first
    guard let again = try? decode(&reread) else {
        fuzzRequire(false, "encoded bytes \(first.readableBytesView.map { $0 }) do not decode")
        return
    }
    fuzzRequire(reread.readableBytes == 0, "decoding left \(reread.readableBytes) of its own encoding")
    var second = ByteBuffer()
    again.write(to: &second)
    fuzzRequire(first == second, "encoding is not a fixpoint")
}

/// The encoders this target checks, under one name.
protocol RTMPWritable { func write(to buffer: inout ByteBuffer) }
extension AMF0Value: RTMPWritable {}
extension RTMPCommand: RTMPWritable {}
extension FLVMetadata: RTMPWritable {}

// Last: the globals above are initialised in order as top-level code runs, and this never returns.
runLibFuzzer(fuzzAMF0)
