/// Every failure the RTMP module reports. Cases carry what a user or the I/O layer needs to act:
/// which field was cut short, which limit a hostile peer exceeded, what the server said when it refused.
/// Descriptions never contain a stream key.
public enum RTMPError: Error, Sendable, Hashable {
    // MARK: Decoding
    /// Fewer bytes than the field needs.
    case truncated(what: String, needed: Int, available: Int)
    /// An AMF0 type marker outside the AMF0 spec (§2.1 lists 0x00...0x10).
    case amf0UnknownMarker(UInt8)
    /// A marker the spec defines but RTMP publishing never needs (movieclip, reference, recordset, XML, typed object, AMF3 switch).
    case amf0UnsupportedMarker(UInt8)
    /// An object-end marker (0x09) where a value was expected.
    case amf0UnexpectedObjectEnd
    /// Objects or arrays nested deeper than the decoder allows; stops stack exhaustion on hostile input.
    case amf0NestingTooDeep(limit: Int)
    /// A string whose bytes are not UTF-8.
    case amf0InvalidUTF8
    /// A message payload that does not match its type (e.g. a Set Chunk Size that is not 4 bytes).
    case invalidMessage(type: UInt8, reason: String)
    /// A command message whose first values are not a name string and a transaction id number (RTMP spec §7.1.1).
    case malformedCommand(reason: String)
    /// An FLV audio/video tag body that breaks the FLV or enhanced-RTMP layout.
    case invalidFLVTag(reason: String)
    /// A well-formed FLV tag using a feature this module does not model (e.g. multitrack video).
    case unsupportedFLVTag(reason: String)

    // MARK: Handshake (RTMP spec §5.2)
    /// S0 carried a version other than 3.
    case handshakeVersionMismatch(received: UInt8)
    /// An event arrived that the handshake cannot take in its current state (e.g. bytes before start).
    case handshakeOutOfOrder

    // MARK: Chunk stream (RTMP spec §5.3)
    /// A message header announcing more bytes than the reader accepts.
    case messageTooLong(length: Int, limit: Int)
    /// The peer opened more chunk streams than the reader tracks.
    case tooManyChunkStreams(limit: Int)
    /// Partially received messages together exceed the reader's memory budget.
    case bufferedBytesExceeded(limit: Int)
    /// A type 1/2/3 chunk on a chunk stream that never had a type 0 header.
    case missingPreviousChunkHeader(chunkStreamID: UInt32)
    /// A type 0/1/2 header arrived while a message on the same chunk stream was still incomplete.
    case interruptedMessage(chunkStreamID: UInt32)
    /// The writer keeps chunk stream ids in 2...31 (one-byte basic header; nginx-rtmp rejects larger ids by default).
    case invalidChunkStreamID(UInt32)

    // MARK: Session (RTMP spec §7.2)
    /// The server refused `connect`.
    case connectRejected(code: String, description: String)
    /// The server refused `createStream` or `publish`.
    case publishRejected(code: String, description: String)
    /// The server reported an error status while we were publishing.
    case streamError(code: String, description: String)
    /// No answer to a command in time.
    case transactionTimedOut(command: String, transactionID: Int)
    /// A `_result` that lacks what the command must return (e.g. createStream without a stream id).
    case unexpectedResponse(command: String, reason: String)

    // MARK: URL
    /// The text has no `scheme://`.
    case urlMissingScheme
    /// A scheme other than rtmp or rtmps.
    case urlUnsupportedScheme(String)
    /// No host, or a host that cannot be used.
    case urlInvalidHost(reason: String)
    /// A port that is not a number in 1...65535.
    case urlInvalidPort(String)
    /// No application name after the host.
    case urlMissingApplication
    /// No stream key in the URL and none given separately.
    case urlMissingStreamKey
}

extension RTMPError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .truncated(let what, let needed, let available):
            return "truncated \(what): needed \(needed) bytes, \(available) available"
        case .amf0UnknownMarker(let marker):
            return "unknown AMF0 type marker 0x\(String(marker, radix: 16))"
        case .amf0UnsupportedMarker(let marker):
            return "unsupported AMF0 type marker 0x\(String(marker, radix: 16))"
        case .amf0UnexpectedObjectEnd:
            return "AMF0 object-end marker where a value was expected"
        case .amf0NestingTooDeep(let limit):
            return "AMF0 values nested deeper than \(limit) levels"
        case .amf0InvalidUTF8:
            return "AMF0 string is not valid UTF-8"
        case .invalidMessage(let type, let reason):
            return "invalid RTMP message of type \(type): \(reason)"
        case .malformedCommand(let reason):
            return "malformed RTMP command: \(reason)"
        case .invalidFLVTag(let reason):
            return "invalid FLV tag: \(reason)"
        case .unsupportedFLVTag(let reason):
            return "unsupported FLV tag: \(reason)"
        case .handshakeVersionMismatch(let received):
            return "RTMP handshake: server speaks version \(received), not 3; is this really an RTMP server (rtmps:// needs TLS)?"
        case .handshakeOutOfOrder:
            return "RTMP handshake: event out of order"
        case .messageTooLong(let length, let limit):
            return "peer announced a \(length)-byte message; the limit is \(limit)"
        case .tooManyChunkStreams(let limit):
            return "peer used more than \(limit) chunk streams"
        case .bufferedBytesExceeded(let limit):
            return "incomplete messages from the peer exceed \(limit) bytes"
        case .missingPreviousChunkHeader(let id):
            return "chunk stream \(id) continued without a type 0 header"
        case .interruptedMessage(let id):
            return "chunk stream \(id) started a new message before finishing the previous one"
        case .invalidChunkStreamID(let id):
            return "chunk stream id \(id) is outside 2...31"
        case .connectRejected(let code, let description):
            return "the server refused the connection (\(code): \(description)); check the application name in the URL "
                + "(e.g. rtmp://a.rtmp.youtube.com/live2) and any credentials in its query string"
        case .publishRejected(let code, let description):
            return "the server refused to publish (\(code): \(description)); check the stream key: "
                + "it may be mistyped, expired, or already in use by another encoder"
        case .streamError(let code, let description):
            return "the server stopped the stream (\(code): \(description))"
        case .transactionTimedOut(let command, let id):
            return "no answer to \(command) (transaction \(id)); check the host and port, and that the server is an RTMP ingest"
        case .unexpectedResponse(let command, let reason):
            return "unexpected answer to \(command): \(reason)"
        case .urlMissingScheme:
            return "the URL must start with rtmp:// or rtmps://, e.g. rtmp://live.twitch.tv/app/KEY"
        case .urlUnsupportedScheme(let scheme):
            return "unsupported URL scheme \"\(scheme)\"; use rtmp:// or rtmps://"
        case .urlInvalidHost(let reason):
            return "invalid host in URL: \(reason)"
        case .urlInvalidPort(let port):
            return "invalid port \"\(port)\" in URL; use a number from 1 to 65535 or leave it out (1935 for rtmp, 443 for rtmps)"
        case .urlMissingApplication:
            return "the URL has no application name; it should look like rtmp://host/app/KEY"
        case .urlMissingStreamKey:
            return "no stream key: append it to the URL (rtmp://host/app/KEY) or pass it separately"
        }
    }
}
