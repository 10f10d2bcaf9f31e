import NIOCore

/// Set Chunk Size (RTMP spec §5.4.1): the largest chunk payload the sender will use from now on.
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |0|                     chunk size (31 bits)                    |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public struct RTMPSetChunkSize: RTMPMessageBody, Hashable {
    public static let messageType = RTMPMessageType.setChunkSize
    /// The default before any Set Chunk Size (§5.4.1).
    public static let defaultChunkSize = 128
    /// What this client announces: large chunks cut header overhead and syscalls for video (OBS uses 4096).
    public static let recommendedChunkSize = 4096
    /// §5.4.1: the top bit must be zero.
    public static let validRange: ClosedRange<UInt32> = 1...0x7FFF_FFFF

    public var chunkSize: UInt32

    public init(chunkSize: UInt32) {
        self.chunkSize = chunkSize
    }

    public init(from buffer: inout ByteBuffer) throws(RTMPError) {
        let value: UInt32 = try buffer.readRequiredInteger("Set Chunk Size")
        guard Self.validRange.contains(value) else {
            throw .invalidMessage(type: Self.messageType.rawValue, reason: "chunk size \(value) outside \(Self.validRange)")
        }
        chunkSize = value
    }

    public var encodedSize: Int { 4 }

    public func write(to buffer: inout ByteBuffer) {
        buffer.writeInteger(chunkSize)
    }
}
