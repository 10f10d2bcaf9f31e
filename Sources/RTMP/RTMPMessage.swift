import NIOCore

/// One reassembled RTMP message (RTMP spec §6.1): what the chunk reader yields and the chunk writer takes.
public struct RTMPMessage: Sendable, Hashable {
    /// The chunk stream it travels on. Chosen by the sender; carries no meaning for the receiver.
    public var chunkStreamID: UInt32
    /// 0 for NetConnection-level messages, the id from `createStream` for NetStream messages.
    public var messageStreamID: UInt32
    /// Milliseconds, wrapping at 2^32.
    public var timestamp: UInt32
    public var type: RTMPMessageType
    public var payload: ByteBuffer

    public init(
        chunkStreamID: UInt32, messageStreamID: UInt32, timestamp: UInt32, type: RTMPMessageType, payload: ByteBuffer
    ) {
        self.chunkStreamID = chunkStreamID
        self.messageStreamID = messageStreamID
        self.timestamp = timestamp
        self.type = type
        self.payload = payload
    }
}
