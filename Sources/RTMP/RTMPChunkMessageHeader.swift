import NIOCore

/// The message header after the basic header, in one of four formats (RTMP spec §5.3.1.2),
/// followed by the extended timestamp when the 24-bit field holds 0xFFFFFF (§5.3.1.3).
/// ```
/// Type 0 (11 bytes): timestamp(3) | message length(3) | type id(1) | message stream id(4, little-endian)
/// Type 1 (7 bytes):  timestamp delta(3) | message length(3) | type id(1)
/// Type 2 (3 bytes):  timestamp delta(3)
/// Type 3 (0 bytes):  everything from the previous chunk of this chunk stream
/// ```
/// A type 3 chunk carries the extended timestamp again when the chunk stream's last header had one;
/// FFmpeg, OBS and nginx-rtmp all write and expect it.
enum RTMPChunkMessageHeader: Sendable, Hashable {
    case type0(timestamp: UInt32, length: UInt32, type: RTMPMessageType, messageStreamID: UInt32)
    case type1(timestampDelta: UInt32, length: UInt32, type: RTMPMessageType)
    case type2(timestampDelta: UInt32)
    case type3(extendedTimestamp: UInt32?)

    /// A 24-bit timestamp field with this value means "read the 32-bit extended timestamp".
    static let extendedTimestampMarker: UInt32 = 0xFF_FFFF

    var format: UInt8 {
        switch self {
        case .type0: return 0
        case .type1: return 1
        case .type2: return 2
        case .type3: return 3
        }
    }

    /// The absolute timestamp (type 0) or delta (types 1, 2) the header carries.
    private var timestampValue: UInt32? {
        switch self {
        case .type0(let value, _, _, _), .type1(let value, _, _), .type2(let value): return value
        case .type3(let value): return value
        }
    }

    /// Whether the header is followed by a 4-byte extended timestamp.
    var hasExtendedTimestamp: Bool {
        guard let value = timestampValue else { return false }
        if case .type3 = self { return true }
        return value >= Self.extendedTimestampMarker
    }

    /// - Parameter extendedTimestampOnType3: whether a type 3 header on this chunk stream is followed by
    ///   an extended timestamp, i.e. whether the previous header on it had one.
    init(from buffer: inout ByteBuffer, format: UInt8, extendedTimestampOnType3: Bool) throws(RTMPError) {
        switch format {
        case 0:
            let timestamp = try buffer.readRequired24UInt("chunk timestamp")
            let length = try buffer.readRequired24UInt("chunk message length")
            let type: UInt8 = try buffer.readRequiredInteger("chunk message type")
            let streamID: UInt32 = try buffer.readRequiredInteger(endianness: .little, "chunk message stream id")
            self = .type0(
                timestamp: try Self.readTimestamp(timestamp, from: &buffer), length: length,
                type: RTMPMessageType(rawValue: type), messageStreamID: streamID)
        case 1:
            let delta = try buffer.readRequired24UInt("chunk timestamp delta")
            let length = try buffer.readRequired24UInt("chunk message length")
            let type: UInt8 = try buffer.readRequiredInteger("chunk message type")
            self = .type1(
                timestampDelta: try Self.readTimestamp(delta, from: &buffer), length: length,
                type: RTMPMessageType(rawValue: type))
        case 2:
            let delta = try buffer.readRequired24UInt("chunk timestamp delta")
            self = .type2(timestampDelta: try Self.readTimestamp(delta, from: &buffer))
        default:
            let extended: UInt32? =
                extendedTimestampOnType3 ? try buffer.readRequiredInteger("chunk extended timestamp") : nil
            self = .type3(extendedTimestamp: extended)
        }
    }

    private static func readTimestamp(_ field: UInt32, from buffer: inout ByteBuffer) throws(RTMPError) -> UInt32 {
        guard field == extendedTimestampMarker else { return field }
        return try buffer.readRequiredInteger("chunk extended timestamp")
    }

    var encodedSize: Int {
        let base: Int
        switch self {
        case .type0: base = 11
        case .type1: base = 7
        case .type2: base = 3
        case .type3: base = 0
        }
        return base + (hasExtendedTimestamp ? 4 : 0)
    }

    func write(to buffer: inout ByteBuffer) {
        switch self {
        case .type0(let timestamp, let length, let type, let streamID):
            buffer.write24UInt(min(timestamp, Self.extendedTimestampMarker))
            buffer.write24UInt(length)
            buffer.writeInteger(type.rawValue)
            buffer.writeInteger(streamID, endianness: .little)
        case .type1(let delta, let length, let type):
            buffer.write24UInt(min(delta, Self.extendedTimestampMarker))
            buffer.write24UInt(length)
            buffer.writeInteger(type.rawValue)
        case .type2(let delta):
            buffer.write24UInt(min(delta, Self.extendedTimestampMarker))
        case .type3:
            break
        }
        if hasExtendedTimestamp, let value = timestampValue {
            buffer.writeInteger(value)
        }
    }
}
