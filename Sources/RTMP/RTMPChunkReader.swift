import NIOCore

/// Reassembles RTMP messages from chunks (RTMP spec §5.3) as a SwiftNIO decoder.
///
/// Handles all four header formats, the 1/2/3-byte basic header, extended timestamps (also on type 3
/// chunks), interleaved chunk streams, and applies Set Chunk Size and Abort from the peer itself
/// (both are still yielded, so the session can see them). They take effect from the next chunk, even
/// when that chunk continues a message on another chunk stream, as in FFmpeg and librtmp.
///
/// The peer is untrusted: every quantity it controls is checked against `Limits`, so buffered state
/// is bounded by `maximumBufferedBytes` plus one chunk, whatever it sends.
/// A chunk is consumed only when complete; the input buffer therefore holds at most one partial chunk.
public struct RTMPChunkReader: NIOSingleStepByteToMessageDecoder, Sendable {
    public typealias InboundOut = RTMPMessage

    public struct Limits: Sendable, Hashable {
        /// Largest message accepted; the wire format caps it at 2^24-1.
        public var maximumMessageLength: Int
        /// Distinct chunk streams the peer may use (servers use fewer than ten).
        public var maximumChunkStreams: Int
        /// Bytes of incomplete messages held across all chunk streams.
        public var maximumBufferedBytes: Int

        public init(maximumMessageLength: Int = 8 << 20, maximumChunkStreams: Int = 64, maximumBufferedBytes: Int = 16 << 20) {
            self.maximumMessageLength = maximumMessageLength
            self.maximumChunkStreams = maximumChunkStreams
            self.maximumBufferedBytes = maximumBufferedBytes
        }
    }

    /// What the previous header on a chunk stream established (§5.3.1.2).
    private struct ChunkStreamState: Sendable {
        var timestamp: UInt32 = 0
        /// Added on type 3 headers that start a message. After a type 0 header this is its timestamp (§5.3.1.2.4).
        var timestampDelta: UInt32 = 0
        var length = 0
        var type = RTMPMessageType(rawValue: 0)
        var messageStreamID: UInt32 = 0
        var hasExtendedTimestamp = false
        /// Bytes of the message in progress; `nil` between messages.
        var partial: ByteBuffer?
    }

    public let limits: Limits
    /// The peer's chunk size, capped at `limits.maximumMessageLength`: a chunk never holds more than
    /// one message, so any larger size (up to the 2^31-1 the spec allows) reads the same.
    public private(set) var chunkSize = RTMPSetChunkSize.defaultChunkSize
    /// Bytes held in incomplete messages; never above `limits.maximumBufferedBytes`.
    public private(set) var bufferedBytes = 0
    private var streams: [UInt32: ChunkStreamState] = [:]

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    public mutating func decode(buffer: inout ByteBuffer) throws -> RTMPMessage? {
        while let outcome = try readChunk(from: &buffer) {
            if let message = outcome {
                return message
            }
        }
        return nil
    }

    public mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> RTMPMessage? {
        try decode(buffer: &buffer)
    }

    /// Reads one chunk. Returns `nil` when the buffer holds no complete chunk (nothing consumed),
    /// `.some(nil)` when a chunk was consumed without completing a message, `.some(message)` otherwise.
    private mutating func readChunk(from buffer: inout ByteBuffer) throws(RTMPError) -> RTMPMessage?? {
        var view = buffer
        let basic: RTMPChunkBasicHeader
        do {
            basic = try RTMPChunkBasicHeader(from: &view)
        } catch .truncated {
            return nil
        }
        let id = basic.chunkStreamID
        let known = streams[id]
        if known == nil {
            guard basic.format == 0 else { throw .missingPreviousChunkHeader(chunkStreamID: id) }
            guard streams.count < limits.maximumChunkStreams else {
                throw .tooManyChunkStreams(limit: limits.maximumChunkStreams)
            }
        }
        var state = known ?? ChunkStreamState()
        let header: RTMPChunkMessageHeader
        do {
            header = try RTMPChunkMessageHeader(
                from: &view, format: basic.format, extendedTimestampOnType3: state.hasExtendedTimestamp)
        } catch .truncated {
            return nil
        }

        if state.partial == nil {
            try startMessage(&state, header: header, chunkStreamID: id)
        } else if header.format != 3 {
            throw .interruptedMessage(chunkStreamID: id)
        }

        let received = state.partial?.readableBytes ?? 0
        guard let data = view.readSlice(length: min(chunkSize, state.length - received)) else { return nil }
        buffer.moveReaderIndex(to: view.readerIndex)

        let payload: ByteBuffer
        if received == 0 && data.readableBytes == state.length {
            payload = data
        } else {
            bufferedBytes += data.readableBytes
            guard bufferedBytes <= limits.maximumBufferedBytes else {
                throw .bufferedBytesExceeded(limit: limits.maximumBufferedBytes)
            }
            var partial = state.partial ?? ByteBuffer()
            partial.writeImmutableBuffer(data)
            guard partial.readableBytes == state.length else {
                state.partial = partial
                streams[id] = state
                return .some(nil)
            }
            bufferedBytes -= partial.readableBytes
            payload = partial
        }
        state.partial = nil
        streams[id] = state
        let message = RTMPMessage(
            chunkStreamID: id, messageStreamID: state.messageStreamID, timestamp: state.timestamp,
            type: state.type, payload: payload)
        try applyProtocolControl(message)
        return message
    }

    /// Applies the header of a chunk that begins a message.
    private func startMessage(
        _ state: inout ChunkStreamState, header: RTMPChunkMessageHeader, chunkStreamID: UInt32
    ) throws(RTMPError) {
        switch header {
        case .type0(let timestamp, let length, let type, let messageStreamID):
            state.timestamp = timestamp
            state.timestampDelta = timestamp
            state.length = Int(length)
            state.type = type
            state.messageStreamID = messageStreamID
        case .type1(let delta, let length, let type):
            state.timestampDelta = delta
            state.timestamp &+= delta
            state.length = Int(length)
            state.type = type
        case .type2(let delta):
            state.timestampDelta = delta
            state.timestamp &+= delta
        case .type3:
            state.timestamp &+= state.timestampDelta
        }
        if header.format != 3 {
            state.hasExtendedTimestamp = header.hasExtendedTimestamp
        }
        guard state.length <= limits.maximumMessageLength else {
            throw .messageTooLong(length: state.length, limit: limits.maximumMessageLength)
        }
    }

    /// Set Chunk Size and Abort change how the following chunks are read (§5.4.1, §5.4.2).
    private mutating func applyProtocolControl(_ message: RTMPMessage) throws(RTMPError) {
        switch message.type {
        case .setChunkSize:
            chunkSize = min(Int(try RTMPSetChunkSize(message).chunkSize), limits.maximumMessageLength)
        case .abort:
            let id = try RTMPAbort(message).chunkStreamID
            if let partial = streams[id]?.partial {
                bufferedBytes -= partial.readableBytes
                streams[id]?.partial = nil
            }
        default:
            break
        }
    }
}
