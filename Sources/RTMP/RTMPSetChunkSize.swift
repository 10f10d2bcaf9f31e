import NIOCore

/// Set Chunk Size (RTMP spec §5.4.1): the largest chunk payload the sender will use from now on.
/// The field has 31 bits: a set top bit is ignored on reading (FFmpeg refuses it, librtmp misreads it
/// as negative), so only a size of 0 is refused.
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
    /// §5.4.1: the size is the low 31 bits; the top bit must be zero.
    static let sizeMask: UInt32 = 0x7FFF_FFFF

    public var chunkSize: UInt32

    public init(chunkSize: UInt32) {
        self.chunkSize = chunkSize
    }

    public init(from buffer: inout ByteBuffer) throws(RTMPError) {
        let field: UInt32 = try buffer.readRequiredInteger("Set Chunk Size")
        let value = field & Self.sizeMask
        guard value > 0 else {
            throw .invalidMessage(type: Self.messageType.rawValue, reason: "chunk size 0 (field 0x\(String(field, radix: 16))); it must be at least 1")
        }
        chunkSize = value
    }

    public var encodedSize: Int { 4 }

    public func write(to buffer: inout ByteBuffer) {
        buffer.writeInteger(chunkSize)
    }
}
