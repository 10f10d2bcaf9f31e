import NIOCore

/// User Control Message (RTMP spec §6.2, §7.1.7): a 16-bit event type and its event data.
/// ```
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |     event type (16 bits)      |     event data ...            |
/// +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// ```
public enum RTMPUserControlEvent: RTMPMessageBody, Hashable {
    public static let messageType = RTMPMessageType.userControl

    /// §7.1.7 event type numbers.
    enum EventType {
        static let streamBegin: UInt16 = 0
        static let streamEOF: UInt16 = 1
        static let streamDry: UInt16 = 2
        static let setBufferLength: UInt16 = 3
        static let streamIsRecorded: UInt16 = 4
        static let pingRequest: UInt16 = 6
        static let pingResponse: UInt16 = 7
    }

    case streamBegin(messageStreamID: UInt32)
    case streamEOF(messageStreamID: UInt32)
    case streamDry(messageStreamID: UInt32)
    case setBufferLength(messageStreamID: UInt32, milliseconds: UInt32)
    case streamIsRecorded(messageStreamID: UInt32)
    /// The server checks we are alive; answer with `pingResponse` carrying the same timestamp.
    case pingRequest(timestamp: UInt32)
    case pingResponse(timestamp: UInt32)
    /// A well-formed event this module does not model (e.g. Flash's SWF verification, 26/27).
    case unknown(eventType: UInt16, data: ByteBuffer)

    /// Whether `message` is a Ping Request, from its event type alone.
    public static func isPingRequest(_ message: RTMPMessage) -> Bool {
        message.type == messageType
            && message.payload.getInteger(at: message.payload.readerIndex, as: UInt16.self) == EventType.pingRequest
    }

    public init(from buffer: inout ByteBuffer) throws(RTMPError) {
        let eventType: UInt16 = try buffer.readRequiredInteger("user control event type")
        switch eventType {
        case EventType.streamBegin: self = .streamBegin(messageStreamID: try buffer.readRequiredInteger("Stream Begin"))
        case EventType.streamEOF: self = .streamEOF(messageStreamID: try buffer.readRequiredInteger("Stream EOF"))
        case EventType.streamDry: self = .streamDry(messageStreamID: try buffer.readRequiredInteger("Stream Dry"))
        case EventType.setBufferLength:
            self = .setBufferLength(
                messageStreamID: try buffer.readRequiredInteger("Set Buffer Length stream id"),
                milliseconds: try buffer.readRequiredInteger("Set Buffer Length"))
        case EventType.streamIsRecorded:
            self = .streamIsRecorded(messageStreamID: try buffer.readRequiredInteger("Stream Is Recorded"))
        case EventType.pingRequest: self = .pingRequest(timestamp: try buffer.readRequiredInteger("Ping Request"))
        case EventType.pingResponse: self = .pingResponse(timestamp: try buffer.readRequiredInteger("Ping Response"))
        default:
            self = .unknown(eventType: eventType, data: buffer.readSlice(length: buffer.readableBytes) ?? ByteBuffer())
        }
    }

    public var encodedSize: Int {
        switch self {
        case .setBufferLength: return 10
        case .unknown(_, let data): return 2 + data.readableBytes
        default: return 6
        }
    }

    public func write(to buffer: inout ByteBuffer) {
        switch self {
        case .streamBegin(let id): write(EventType.streamBegin, id, to: &buffer)
        case .streamEOF(let id): write(EventType.streamEOF, id, to: &buffer)
        case .streamDry(let id): write(EventType.streamDry, id, to: &buffer)
        case .setBufferLength(let id, let milliseconds):
            write(EventType.setBufferLength, id, to: &buffer)
            buffer.writeInteger(milliseconds)
        case .streamIsRecorded(let id): write(EventType.streamIsRecorded, id, to: &buffer)
        case .pingRequest(let timestamp): write(EventType.pingRequest, timestamp, to: &buffer)
        case .pingResponse(let timestamp): write(EventType.pingResponse, timestamp, to: &buffer)
        case .unknown(let eventType, let data):
            buffer.writeInteger(eventType)
            buffer.writeImmutableBuffer(data)
        }
    }

    private func write(_ eventType: UInt16, _ value: UInt32, to buffer: inout ByteBuffer) {
        buffer.writeInteger(eventType)
        buffer.writeInteger(value)
    }
}
