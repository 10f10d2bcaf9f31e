import NIOCore

/// Abort Message (RTMP spec §5.4.2): discard the partly received message on a chunk stream.
/// ```
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |                    chunk stream id (32 bits)                  |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct RTMPAbort: RTMPMessageBody, Hashable {
    public static let messageType = RTMPMessageType.abort

    public var chunkStreamID: UInt32

    public init(chunkStreamID: UInt32) {
        self.chunkStreamID = chunkStreamID
    }

    public init(from buffer: inout ByteBuffer) throws(RTMPError) {
        chunkStreamID = try buffer.readRequiredInteger("Abort chunk stream id")
    }

    public var encodedSize: Int { 4 }

    public func write(to buffer: inout ByteBuffer) {
        buffer.writeInteger(chunkStreamID)
    }
}
