import FuzzCore
import NIOCore
import RTMP

/// AMF0 as it arrives in RTMP command and data messages: values, whole commands and `onMetaData`.
/// Encoding normalises (ECMA array counts, long strings), so the check is that encoding a decoded
/// value gives bytes that decode and encode to themselves; `Double` NaNs make value equality unusable.
func checkAMF0(_ input: [UInt8]) throws(FuzzInvariantBroken) {
    let buffer = FuzzInput.byteBuffer(input)
    var values = buffer
    if let decoded = try? AMF0Value.decodeAll(from: &values) {
        for value in decoded { try requireFixpoint(value, decode: AMF0Value.init(from:)) }
    }
    var command = buffer
    if let decoded = try? RTMPCommand(from: &command) {
        try requireFixpoint(decoded, decode: RTMPCommand.init(from:))
        _ = RTMPServerCommand(decoded)
    }
    var metadata = buffer
    if let decoded = try? FLVMetadata(from: &metadata) {
        try requireFixpoint(decoded, decode: FLVMetadata.init(from:))
    }
    return
}

/// Encoding `value`, decoding that and encoding again must give the first bytes back.
func requireFixpoint<Value: RTMPWritable>(_ value: Value, decode: (inout ByteBuffer) throws(RTMPError) -> Value) throws(FuzzInvariantBroken) {
    var first = ByteBuffer()
    value.write(to: &first)
    var reread = first
    guard let again = try? decode(&reread) else {
        throw FuzzInvariantBroken(message: "encoded bytes \(first.readableBytesView.map { $0 }) do not decode", file: #fileID, line: #line)
    }
    try fuzzRequire(reread.readableBytes == 0, "decoding left \(reread.readableBytes) of its own encoding")
    var second = ByteBuffer()
    again.write(to: &second)
    try fuzzRequire(first == second, "encoding is not a fixpoint")
}

/// The encoders this target checks, under one name.
protocol RTMPWritable { func write(to buffer: inout ByteBuffer) }
extension AMF0Value: RTMPWritable {}
extension RTMPCommand: RTMPWritable {}
extension FLVMetadata: RTMPWritable {}

extension FuzzTarget {
    public static let amf0 = FuzzTarget(name: "FuzzAMF0", check: checkAMF0)
}
