import NIOCore

/// A command message (RTMP spec §7.1.1): AMF0 command name, transaction id, command object,
/// then optional arguments.
/// ```
/// string name | number transaction id | command object (object or null) | argument ...
/// ```
/// Messages of type 17 (AMF3 command) start with one format byte, after which every server in use
/// writes AMF0; `init(_:)` skips that byte.
public struct RTMPCommand: RTMPMessageBody, Hashable {
    public static let messageType = RTMPMessageType.commandAMF0
    /// The byte before the AMF0 values in an AMF3 command message.
    static let amf3FormatByteCount = 1

    public var name: String
    /// Pairs a `_result`/`_error` with its request. 0 means "no answer expected" (§7.2.1).
    public var transactionID: Double
    public var commandObject: AMF0Value
    public var arguments: [AMF0Value]

    public init(name: String, transactionID: Double, commandObject: AMF0Value = .null, arguments: [AMF0Value] = []) {
        self.name = name
        self.transactionID = transactionID
        self.commandObject = commandObject
        self.arguments = arguments
    }

    /// Decodes from a message of type 20, or of type 17 after its format byte.
    public init(_ message: RTMPMessage) throws(RTMPError) {
        var payload = try Self.amf0Values(of: message)
        try self.init(from: &payload)
    }

    /// The AMF0 values of a command message: the whole payload of type 20, all but the format byte of type 17.
    static func amf0Values(of message: RTMPMessage) throws(RTMPError) -> ByteBuffer {
        var payload = message.payload
        switch message.type {
        case .commandAMF0:
            break
        case .commandAMF3:
            guard payload.readSlice(length: Self.amf3FormatByteCount) != nil else {
                throw .truncated(what: "AMF3 command format byte", needed: 1, available: 0)
            }
        default:
            throw .invalidMessage(type: message.type.rawValue, reason: "not a command message")
        }
        return payload
    }

    /// Reads the command name alone, the first AMF0 value.
    static func name(from buffer: inout ByteBuffer) throws(RTMPError) -> String {
        guard case .string(let name) = try AMF0Value(from: &buffer) else {
            throw .malformedCommand(reason: "first value is not the command name")
        }
        return name
    }

    /// Reads the whole rest of the buffer: every value after the command object is an argument.
    public init(from buffer: inout ByteBuffer) throws(RTMPError) {
        let name = try Self.name(from: &buffer)
        self.name = name
        // FFmpeg's RTMP server (`ffmpeg -listen 1`) sends `onFCPublish` as the bare name: no transaction id,
        // which reads as 0, "no answer expected". Anything else in that place is malformed.
        if buffer.readableBytes == 0 {
            transactionID = 0
        } else if case .number(let transactionID) = try AMF0Value(from: &buffer) {
            self.transactionID = transactionID
        } else {
            throw .malformedCommand(reason: "\(name) has no transaction id")
        }
        // Some servers end `onBWDone` and similar right after the transaction id.
        commandObject = buffer.readableBytes > 0 ? try AMF0Value(from: &buffer) : .null
        arguments = try AMF0Value.decodeAll(from: &buffer)
    }

    public var encodedSize: Int {
        AMF0Value.string(name).encodedSize + 9 + commandObject.encodedSize + arguments.reduce(0) { $0 + $1.encodedSize }
    }

    public func write(to buffer: inout ByteBuffer) {
        AMF0Value.string(name).write(to: &buffer)
        AMF0Value.number(transactionID).write(to: &buffer)
        commandObject.write(to: &buffer)
        AMF0Value.write(arguments, to: &buffer)
    }
}
