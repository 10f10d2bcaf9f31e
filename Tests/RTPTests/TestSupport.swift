import NIOCore
import TestSupport
import RTP

/// Builds a buffer from hex like "80 60 00 01"; spaces and `|` are ignored so vectors can show fields.
func bytes(_ hex: String) -> ByteBuffer {
    let digits = hex.filter(\.isHexDigit)
    var buffer = ByteBuffer()
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        buffer.writeInteger(UInt8(digits[index..<next], radix: 16) ?? 0)
        index = next
    }
    return buffer
}

func bytes(_ values: [UInt8]) -> ByteBuffer {
    ByteBuffer(bytes: values)
}

/// Serializes anything with `write(to:)` into a fresh buffer.
func encode(_ write: (inout ByteBuffer) -> Void) -> ByteBuffer {
    var buffer = ByteBuffer()
    write(&buffer)
    return buffer
}


/// Every strict prefix of `buffer`.
func prefixes(of buffer: ByteBuffer) -> [ByteBuffer] {
    (0..<buffer.readableBytes).map { buffer.getSlice(at: buffer.readerIndex, length: $0) ?? ByteBuffer() }
}
