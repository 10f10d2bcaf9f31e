import NIOCore

/// Splits outgoing messages into chunks (RTMP spec §5.3), compressing headers against the previous
/// message on the same chunk stream:
///
/// - type 0 on a chunk stream's first message, when the message stream changes, and when the timestamp
///   goes backwards (§5.3.1.2.1);
/// - type 1 when length or type changed, type 2 when only the timestamp delta changed;
/// - type 3 for a new message only when its delta equals the delta of the previous type 1/2 header.
///   After a type 0 header the spec says the "delta" is the absolute timestamp while nginx-rtmp keeps the
///   older delta, so the writer never relies on either reading;
/// - type 3 for every continuation chunk, repeating the extended timestamp when the header had one.
///
/// Writes go into a caller-provided buffer so the per-frame path does not allocate once the buffer has grown.
/// Writing a Set Chunk Size message switches the writer to the new size after that message,
/// which keeps the announced and the used sizes from ever disagreeing.
public struct RTMPChunkWriter: Sendable {
    /// §5.3.1.2: the message length field is 24 bits.
    public static let maximumMessageLength = 0xFF_FFFF

    private struct PreviousHeader: Sendable {
        var timestamp: UInt32
        var length: Int
        var type: RTMPMessageType
        var messageStreamID: UInt32
        /// The delta a receiver will add on a type 3 header; `nil` after a type 0 header (see above).
        var delta: UInt32?
    }

    public private(set) var chunkSize = RTMPSetChunkSize.defaultChunkSize
    private var previous = [PreviousHeader?](repeating: nil, count: Int(RTMPChunkStreamID.writerRange.upperBound) + 1)

    public init() {}

    /// Appends `message` as chunks to `buffer`.
    /// - Throws: `.invalidChunkStreamID` outside 2...31, `.messageTooLong` past 2^24-1 bytes,
    ///   and the Set Chunk Size decoding errors when `message` is a malformed Set Chunk Size.
    public mutating func write(_ message: RTMPMessage, into buffer: inout ByteBuffer) throws(RTMPError) {
        let chunkStreamID = message.chunkStreamID
        guard RTMPChunkStreamID.writerRange.contains(chunkStreamID) else { throw .invalidChunkStreamID(chunkStreamID) }
        let length = message.payload.readableBytes
        guard length <= Self.maximumMessageLength else {
            throw .messageTooLong(length: length, limit: Self.maximumMessageLength)
        }
        let newChunkSize = message.type == .setChunkSize ? Int(try RTMPSetChunkSize(message).chunkSize) : nil

        let header = nextHeader(for: message, length: length)
        let basicHeaderSize = 1  // ids 2...31 use the one-byte form
        let continuationHeader = RTMPChunkMessageHeader.type3(
            extendedTimestamp: header.hasExtendedTimestamp ? Self.timestampValue(of: header, message) : nil)
        let chunkCount = max(1, (length + chunkSize - 1) / chunkSize)
        buffer.reserveCapacity(
            minimumWritableBytes: length + basicHeaderSize * chunkCount + header.encodedSize
                + (chunkCount - 1) * continuationHeader.encodedSize)

        var offset = 0
        var chunkHeader = header
        let payload = message.payload.readableBytesView
        repeat {
            RTMPChunkBasicHeader(format: chunkHeader.format, chunkStreamID: chunkStreamID).write(to: &buffer)
            chunkHeader.write(to: &buffer)
            let end = min(offset + chunkSize, length)
            buffer.writeBytes(payload[(payload.startIndex + offset)..<(payload.startIndex + end)])
            offset = end
            chunkHeader = continuationHeader
        } while offset < length

        if let newChunkSize {
            chunkSize = newChunkSize
        }
    }

    /// Picks the smallest header the receiver can expand unambiguously, and records it.
    private mutating func nextHeader(for message: RTMPMessage, length: Int) -> RTMPChunkMessageHeader {
        let index = Int(message.chunkStreamID)
        var next = PreviousHeader(
            timestamp: message.timestamp, length: length, type: message.type,
            messageStreamID: message.messageStreamID, delta: nil)
        defer { previous[index] = next }
        guard let last = previous[index], last.messageStreamID == message.messageStreamID,
            message.timestamp >= last.timestamp
        else {
            return .type0(
                timestamp: message.timestamp, length: UInt32(length), type: message.type,
                messageStreamID: message.messageStreamID)
        }
        let delta = message.timestamp - last.timestamp
        next.delta = delta
        guard last.length == length, last.type == message.type else {
            return .type1(timestampDelta: delta, length: UInt32(length), type: message.type)
        }
        if last.delta == delta, delta < RTMPChunkMessageHeader.extendedTimestampMarker {
            return .type3(extendedTimestamp: nil)
        }
        return .type2(timestampDelta: delta)
    }

    private static func timestampValue(of header: RTMPChunkMessageHeader, _ message: RTMPMessage) -> UInt32 {
        switch header {
        case .type1(let delta, _, _), .type2(let delta): return delta
        case .type0, .type3: return message.timestamp
        }
    }
}
