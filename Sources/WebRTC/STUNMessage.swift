import NIOCore

/// A STUN message (RFC 8489 §5): 20-byte header, then attributes.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |0 0|     STUN Message Type     |         Message Length        |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         Magic Cookie                          |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                     Transaction ID (96 bits)                  |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// Decoding checks the structure only; ``STUNMessage/checkIntegrity(of:key:)`` and
/// ``STUNMessage/checkFingerprint(of:)`` authenticate the bytes it came from.
public struct STUNMessage: Sendable, Hashable {
    public static let magicCookie: UInt32 = 0x2112_A442
    public static let headerLength = 20
    /// Leading two bits of every STUN message are zero (RFC 8489 §5).
    private static let leadingBitsMask: UInt16 = 0xC000
    /// More attributes than any ICE message has; bounds work on hostile input.
    static let maximumAttributes = 64

    public var type: STUNMessageType
    public var transactionID: STUNTransactionID
    public var attributes: [STUNAttribute]

    public init(type: STUNMessageType, transactionID: STUNTransactionID, attributes: [STUNAttribute] = []) {
        self.type = type
        self.transactionID = transactionID
        self.attributes = attributes
    }

    /// Reads one whole message (the datagram); leftover bytes past the declared length are an error.
    public init(from buffer: inout ByteBuffer) throws(WebRTCError) {
        guard buffer.readableBytes >= Self.headerLength else {
            throw .truncated(needed: Self.headerLength, available: buffer.readableBytes)
        }
        let rawType = buffer.readInteger(as: UInt16.self) ?? 0
        let length = Int(buffer.readInteger(as: UInt16.self) ?? 0)
        let cookie = buffer.readInteger(as: UInt32.self) ?? 0
        let idBytes = buffer.readBytes(length: STUNTransactionID.byteCount) ?? []
        guard rawType & Self.leadingBitsMask == 0 else { throw .notSTUN(reason: "leading bits are not zero") }
        guard cookie == Self.magicCookie else { throw .notSTUN(reason: "magic cookie is 0x\(String(cookie, radix: 16))") }
        guard length % 4 == 0 else { throw .notSTUN(reason: "length \(length) is not a multiple of 4") }
        guard buffer.readableBytes == length else {
            if buffer.readableBytes < length { throw .truncated(needed: length, available: buffer.readableBytes) }
            throw .notSTUN(reason: "\(buffer.readableBytes - length) bytes after the declared length")
        }
        guard let transactionID = STUNTransactionID(bytes: idBytes) else {
            throw .truncated(needed: STUNTransactionID.byteCount, available: idBytes.count)
        }
        type = STUNMessageType(rawValue: rawType)
        self.transactionID = transactionID
        attributes = []
        while buffer.readableBytes > 0 {
            guard attributes.count < Self.maximumAttributes else {
                throw .valueOutOfRange(field: "attribute count", value: attributes.count + 1)
            }
            guard let attributeType = buffer.readInteger(as: UInt16.self), let attributeLength = buffer.readInteger(as: UInt16.self) else {
                throw .truncated(needed: STUNAttribute.headerLength, available: buffer.readableBytes)
            }
            let padded = (Int(attributeLength) + 3) / 4 * 4
            guard let value = buffer.readSlice(length: Int(attributeLength)), buffer.readSlice(length: padded - Int(attributeLength)) != nil else {
                throw .truncated(needed: padded, available: buffer.readableBytes)
            }
            attributes.append(try STUNAttribute(type: attributeType, value: value, transactionID: transactionID))
        }
    }

    public var encodedSize: Int {
        Self.headerLength + attributes.reduce(0) { $0 + $1.encodedSize }
    }

    /// Writes the message with its attributes as they are (integrity values included verbatim).
    public func write(to buffer: inout ByteBuffer) {
        buffer.writeInteger(type.rawValue)
        buffer.writeInteger(UInt16(truncatingIfNeeded: encodedSize - Self.headerLength))
        buffer.writeInteger(Self.magicCookie)
        buffer.writeBytes(transactionID.bytes)
        for attribute in attributes {
            attribute.write(to: &buffer, transactionID: transactionID)
        }
    }

    /// The first attribute `extract` picks out.
    public func first<T>(_ extract: (STUNAttribute) -> T?) -> T? {
        attributes.lazy.compactMap(extract).first
    }

    public var username: String? {
        first { if case .username(let name) = $0 { name } else { nil } }
    }

    public var priority: UInt32? {
        first { if case .priority(let value) = $0 { value } else { nil } }
    }

    public var xorMappedAddress: TransportAddress? {
        first { if case .xorMappedAddress(let address) = $0 { address } else { nil } }
    }

    public var errorCode: STUNErrorCode? {
        first { if case .errorCode(let error) = $0 { error } else { nil } }
    }

    public var hasUseCandidate: Bool {
        attributes.contains(.useCandidate)
    }
}
