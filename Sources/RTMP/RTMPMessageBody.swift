import NIOCore

/// A value that is the whole payload of one RTMP message type: protocol control messages,
/// user control events, commands. Lets `RTMPMessage(_:)` build and `decode(_:)` check the type id in one place.
public protocol RTMPMessageBody: Sendable {
    /// The message type id this body travels under.
    static var messageType: RTMPMessageType { get }
    init(from buffer: inout ByteBuffer) throws(RTMPError)
    var encodedSize: Int { get }
    func write(to buffer: inout ByteBuffer)
}

extension RTMPMessageBody {
    /// The body alone, as a new buffer.
    public func encoded() -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(encodedSize)
        write(to: &buffer)
        return buffer
    }

    /// Decodes the body of `message`, which must carry this body's type and nothing after it.
    public init(_ message: RTMPMessage) throws(RTMPError) {
        guard message.type == Self.messageType else {
            throw .invalidMessage(type: message.type.rawValue, reason: "expected type \(Self.messageType)")
        }
        var payload = message.payload
        try self.init(from: &payload)
        guard payload.readableBytes == 0 else {
            throw .invalidMessage(type: message.type.rawValue, reason: "\(payload.readableBytes) trailing bytes")
        }
    }
}

extension RTMPMessage {
    /// Wraps a body. Protocol control messages default to chunk stream 2 and message stream 0, as §5.4 requires.
    public init<Body: RTMPMessageBody>(
        _ body: Body,
        chunkStreamID: UInt32 = RTMPChunkStreamID.protocolControl,
        messageStreamID: UInt32 = 0,
        timestamp: UInt32 = 0
    ) {
        self.init(
            chunkStreamID: chunkStreamID, messageStreamID: messageStreamID, timestamp: timestamp,
            type: Body.messageType, payload: body.encoded()
        )
    }
}
