import NIOCore

/// An RTP packet, RFC 3550 §5.1: header, payload and optional padding.
///
/// The payload is a `ByteBuffer` slice of the datagram or of the encoder output, never a copy.
/// `write(to:)` appends to a buffer the caller owns and reuses, so sending allocates nothing per packet.
///
/// Padding (P bit): the last octet counts the padding octets including itself; they follow the payload.
public struct RTPPacket: Sendable, Equatable {
    public var header: RTPHeader
    public var payload: ByteBuffer
    /// Number of padding octets including the count octet; 0 means no padding (P = 0).
    public var paddingSize: UInt8

    public init(header: RTPHeader, payload: ByteBuffer, paddingSize: UInt8 = 0) {
        self.header = header
        self.payload = payload
        self.paddingSize = paddingSize
    }

    /// Decodes a whole datagram: RTP has no length field, so everything readable is this packet.
    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        var copy = buffer
        let (header, hasPadding) = try RTPHeader.decode(from: &copy)
        var paddingSize: UInt8 = 0
        if hasPadding {
            try copy.requireReadable(1)
            // Non-nil: one byte is readable.
            paddingSize = copy.getInteger(at: copy.writerIndex - 1, as: UInt8.self) ?? 0
            guard paddingSize > 0, Int(paddingSize) <= copy.readableBytes else {
                throw .invalidPadding(count: Int(paddingSize), available: copy.readableBytes)
            }
        }
        let payload = try copy.readRequiredSlice(length: copy.readableBytes - Int(paddingSize))
        copy.moveReaderIndex(forwardBy: Int(paddingSize))
        self.init(header: header, payload: payload, paddingSize: paddingSize)
        buffer = copy
    }

    public var encodedSize: Int {
        header.encodedSize + payload.readableBytes + Int(paddingSize)
    }

    public func write(to buffer: inout ByteBuffer) {
        header.write(to: &buffer, hasPadding: paddingSize > 0)
        buffer.writeImmutableBuffer(payload)
        if paddingSize > 0 {
            buffer.writeZeros(Int(paddingSize) - 1)
            buffer.writeInteger(paddingSize)
        }
    }
}
