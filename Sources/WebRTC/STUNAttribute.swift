import NIOCore

/// One STUN attribute (RFC 8489 §14, RFC 8445 §16.1), typed for what ICE uses and kept as bytes
/// otherwise (comprehension-optional ones must be ignored; the caller decides about the rest).
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |         Type                  |            Length             |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                         Value (variable)                ....  (padded to 4 bytes)
public enum STUNAttribute: Sendable, Hashable {
    /// `remoteUfrag:localUfrag` in an ICE check (RFC 8445 §7.2.2).
    case username(String)
    /// HMAC-SHA1 over the message before it (RFC 8489 §14.5).
    case messageIntegrity([UInt8])
    /// CRC-32 of the message before it, XOR 0x5354554e (RFC 8489 §14.7).
    case fingerprint(UInt32)
    case xorMappedAddress(TransportAddress)
    case priority(UInt32)
    case useCandidate
    /// The sender's tie-breaker (RFC 8445 §7.1.3).
    case iceControlling(UInt64)
    case iceControlled(UInt64)
    case errorCode(STUNErrorCode)
    case unknown(type: UInt16, value: [UInt8])

    enum TypeCode {
        static let username: UInt16 = 0x0006
        static let messageIntegrity: UInt16 = 0x0008
        static let errorCode: UInt16 = 0x0009
        static let xorMappedAddress: UInt16 = 0x0020
        static let priority: UInt16 = 0x0024
        static let useCandidate: UInt16 = 0x0025
        static let fingerprint: UInt16 = 0x8028
        static let iceControlled: UInt16 = 0x8029
        static let iceControlling: UInt16 = 0x802A
    }

    static let maximumUsernameBytes = 513
    static let messageIntegrityLength = 20
    static let headerLength = 4
    private static let familyIPv4: UInt8 = 0x01
    private static let familyIPv6: UInt8 = 0x02

    var typeCode: UInt16 {
        switch self {
        case .username: TypeCode.username
        case .messageIntegrity: TypeCode.messageIntegrity
        case .fingerprint: TypeCode.fingerprint
        case .xorMappedAddress: TypeCode.xorMappedAddress
        case .priority: TypeCode.priority
        case .useCandidate: TypeCode.useCandidate
        case .iceControlling: TypeCode.iceControlling
        case .iceControlled: TypeCode.iceControlled
        case .errorCode: TypeCode.errorCode
        case .unknown(let type, _): type
        }
    }

    /// Decodes the value of an attribute of `type`; `transactionID` unmasks XOR-MAPPED-ADDRESS.
    init(type: UInt16, value: ByteBuffer, transactionID: STUNTransactionID) throws(WebRTCError) {
        var value = value
        let length = value.readableBytes
        let invalid = { (reason: String) in WebRTCError.invalidAttribute(type: type, reason: reason) }
        func exact(_ expected: Int) throws(WebRTCError) {
            guard length == expected else { throw invalid("length \(length), expected \(expected)") }
        }
        switch type {
        case TypeCode.username:
            guard length <= Self.maximumUsernameBytes else { throw invalid("username of \(length) bytes") }
            guard let text = value.readString(length: length), text.utf8.count == length else { throw invalid("username is not UTF-8") }
            self = .username(text)
        case TypeCode.messageIntegrity:
            try exact(Self.messageIntegrityLength)
            self = .messageIntegrity(value.readBytes(length: length) ?? [])
        case TypeCode.fingerprint:
            try exact(4)
            self = .fingerprint(value.readInteger() ?? 0)
        case TypeCode.priority:
            try exact(4)
            self = .priority(value.readInteger() ?? 0)
        case TypeCode.useCandidate:
            try exact(0)
            self = .useCandidate
        case TypeCode.iceControlling:
            try exact(8)
            self = .iceControlling(value.readInteger() ?? 0)
        case TypeCode.iceControlled:
            try exact(8)
            self = .iceControlled(value.readInteger() ?? 0)
        case TypeCode.xorMappedAddress:
            self = .xorMappedAddress(try Self.decodeXORAddress(&value, transactionID: transactionID, invalid: invalid))
        case TypeCode.errorCode:
            guard length >= 4, length - 4 <= STUNErrorCode.maximumReasonBytes else { throw invalid("length \(length)") }
            let classAndNumber = (value.readInteger(as: UInt32.self) ?? 0) & 0x7FF
            let code = Int(classAndNumber >> 8) * 100 + Int(classAndNumber & 0xFF)
            guard STUNErrorCode.validCodes.contains(code), classAndNumber & 0xFF < 100 else { throw invalid("error code \(code)") }
            self = .errorCode(STUNErrorCode(code: code, reason: value.readString(length: value.readableBytes) ?? ""))
        default:
            self = .unknown(type: type, value: value.readBytes(length: length) ?? [])
        }
    }

    /// The XOR mask of an address: the magic cookie, then (for IPv6) the transaction id.
    private static func addressMask(_ transactionID: STUNTransactionID) -> [UInt8] {
        [0x21, 0x12, 0xA4, 0x42] + transactionID.bytes
    }

    private static func decodeXORAddress(_ value: inout ByteBuffer, transactionID: STUNTransactionID,
                                         invalid: (String) -> WebRTCError) throws(WebRTCError) -> TransportAddress {
        guard let header = value.readInteger(as: UInt16.self), let xPort = value.readInteger(as: UInt16.self) else {
            throw invalid("address shorter than 4 bytes")
        }
        let family = UInt8(header & 0xFF)
        let expected = family == familyIPv4 ? 4 : family == familyIPv6 ? 16 : 0
        guard expected > 0 else { throw invalid("address family \(family)") }
        guard value.readableBytes == expected, let masked = value.readBytes(length: expected) else {
            throw invalid("address of \(value.readableBytes) bytes for family \(family)")
        }
        let bytes = zip(masked, addressMask(transactionID)).map { $0 ^ $1 }
        guard let ip = IPAddress(bytes: bytes) else { throw invalid("address bytes") }
        return TransportAddress(ip: ip, port: xPort ^ UInt16(STUNMessage.magicCookie >> 16))
    }

    /// Writes type, length, value and padding; `transactionID` masks XOR-MAPPED-ADDRESS.
    func write(to buffer: inout ByteBuffer, transactionID: STUNTransactionID) {
        buffer.writeInteger(typeCode)
        let lengthIndex = buffer.writerIndex
        buffer.writeInteger(UInt16(0))
        let start = buffer.writerIndex
        switch self {
        case .username(let text): buffer.writeString(text)
        case .messageIntegrity(let bytes), .unknown(_, let bytes): buffer.writeBytes(bytes)
        case .fingerprint(let value), .priority(let value): buffer.writeInteger(value)
        case .useCandidate: break
        case .iceControlling(let value), .iceControlled(let value): buffer.writeInteger(value)
        case .xorMappedAddress(let address):
            buffer.writeInteger(UInt16(address.ip.isIPv4 ? Self.familyIPv4 : Self.familyIPv6))
            buffer.writeInteger(address.port ^ UInt16(STUNMessage.magicCookie >> 16))
            buffer.writeBytes(zip(address.ip.bytes, Self.addressMask(transactionID)).map { $0 ^ $1 })
        case .errorCode(let error):
            buffer.writeInteger(UInt32(error.code / 100) << 8 | UInt32(error.code % 100))
            buffer.writeString(error.reason)
        }
        let length = buffer.writerIndex - start
        buffer.setInteger(UInt16(truncatingIfNeeded: length), at: lengthIndex)
        buffer.writeRepeatingByte(0, count: (4 - length % 4) % 4)
    }

    /// Type, length and padded value.
    var encodedSize: Int {
        let length: Int
        switch self {
        case .username(let text): length = text.utf8.count
        case .messageIntegrity(let bytes), .unknown(_, let bytes): length = bytes.count
        case .fingerprint, .priority: length = 4
        case .useCandidate: length = 0
        case .iceControlling, .iceControlled: length = 8
        case .xorMappedAddress(let address): length = 4 + address.ip.bytes.count
        case .errorCode(let error): length = 4 + error.reason.utf8.count
        }
        return Self.headerLength + (length + 3) / 4 * 4
    }
}
