import NIOCore
import RTMP
import Testing

extension ByteBuffer {
    /// A buffer holding `bytes`.
    init(_ bytes: [UInt8]) {
        self.init(bytes: bytes)
    }

    /// The readable bytes as an array, for `#expect` comparisons that print well.
    var bytes: [UInt8] {
        Array(readableBytesView)
    }
}

/// `string` as AMF0 short-string bytes without the marker: 16-bit length + UTF-8.
func amfKey(_ string: String) -> [UInt8] {
    let utf8 = Array(string.utf8)
    return [UInt8(utf8.count >> 8), UInt8(utf8.count & 0xFF)] + utf8
}

/// AMF0 string value: marker 0x02 + length + UTF-8.
func amfString(_ string: String) -> [UInt8] {
    [0x02] + amfKey(string)
}

/// AMF0 number value: marker 0x00 + big-endian double.
func amfNumber(_ value: Double) -> [UInt8] {
    [0x00] + withUnsafeBytes(of: value.bitPattern.bigEndian) { Array($0) }
}

/// Feeds `input` to a chunk reader through NIO's processor in pieces of `pieceSize` bytes.
func readMessages(
    _ input: [UInt8], pieceSize: Int = .max, limits: RTMPChunkReader.Limits = .init()
) throws -> [RTMPMessage] {
    let processor = NIOSingleStepByteToMessageProcessor(RTMPChunkReader(limits: limits))
    var messages: [RTMPMessage] = []
    var offset = 0
    repeat {
        let end = min(input.count, offset + min(pieceSize, input.count - offset))
        try processor.process(buffer: ByteBuffer(bytes: input[offset..<end])) { messages.append($0) }
        offset = end
    } while offset < input.count
    return messages
}

/// Encodes messages with a fresh writer.
func writeChunks(_ messages: [RTMPMessage]) throws -> [UInt8] {
    var writer = RTMPChunkWriter()
    var buffer = ByteBuffer()
    for message in messages {
        try writer.write(message, into: &buffer)
    }
    return buffer.bytes
}

/// Runs `body` and returns the `RTMPError` it throws, or `nil`; any other error is a test failure.
func rtmpError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> RTMPError? {
    do {
        try body()
        return nil
    } catch let error as RTMPError {
        return error
    } catch {
        Issue.record("not an RTMPError: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
