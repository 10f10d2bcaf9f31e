import NIOCore

/// MESSAGE-INTEGRITY and FINGERPRINT (RFC 8489 §14.5, §14.7): each covers the message up to the
/// attribute itself, with the header's length field already counting the attribute. That is why
/// they are computed on bytes, when encoding, and checked on the received bytes, not on a value.
extension STUNMessage {
    /// XORed into the CRC so a FINGERPRINT tells STUN apart from other protocols on the port.
    static let fingerprintXOR: UInt32 = 0x5354_554E
    private static let lengthFieldOffset = 2
    private static let integrityAttributeSize = STUNAttribute.headerLength + STUNAttribute.messageIntegrityLength
    private static let fingerprintAttributeSize = STUNAttribute.headerLength + 4

    /// Encodes the message, appending MESSAGE-INTEGRITY (keyed with `integrityKey`, for ICE the
    /// password of the agent that will check it) and FINGERPRINT; any such attributes already in
    /// `attributes` are replaced. Throws for values the wire format cannot carry.
    public func encoded(integrityKey: [UInt8]?, fingerprint: Bool = true) throws(WebRTCError) -> ByteBuffer {
        let body = attributes.filter {
            if case .messageIntegrity = $0 { return false }
            if case .fingerprint = $0 { return false }
            return true
        }
        for attribute in body {
            try attribute.validateForEncoding()
        }
        var message = STUNMessage(type: type, transactionID: transactionID, attributes: body)
        guard message.encodedSize + Self.integrityAttributeSize + Self.fingerprintAttributeSize <= Int(UInt16.max) else {
            throw .valueOutOfRange(field: "message length", value: message.encodedSize)
        }
        var buffer = ByteBuffer()
        message.write(to: &buffer)
        if let integrityKey {
            Self.setLength(of: &buffer, including: Self.integrityAttributeSize)
            let tag = HMACSHA1.authenticate(Array(buffer.readableBytesView), key: integrityKey)
            message.attributes.append(.messageIntegrity(tag))
            STUNAttribute.messageIntegrity(tag).write(to: &buffer, transactionID: transactionID)
        }
        if fingerprint {
            Self.setLength(of: &buffer, including: Self.fingerprintAttributeSize)
            let crc = CRC32.checksum(buffer.readableBytesView) ^ Self.fingerprintXOR
            STUNAttribute.fingerprint(crc).write(to: &buffer, transactionID: transactionID)
        }
        return buffer
    }

    /// Checks MESSAGE-INTEGRITY of a received datagram with `key`. Throws when the attribute is
    /// missing or the HMAC differs.
    public static func checkIntegrity(of datagram: ByteBuffer, key: [UInt8]) throws(WebRTCError) {
        var bytes = Array(datagram.readableBytesView)
        guard let offset = attributeOffset(of: STUNAttribute.TypeCode.messageIntegrity, in: bytes),
              offset + integrityAttributeSize <= bytes.count else {
            throw .integrityCheckFailed(reason: "no MESSAGE-INTEGRITY")
        }
        let received = Array(bytes[(offset + STUNAttribute.headerLength)..<(offset + integrityAttributeSize)])
        setLength(of: &bytes, to: offset + integrityAttributeSize - headerLength)
        let expected = HMACSHA1.authenticate(Array(bytes[..<offset]), key: key)
        guard HMACSHA1.constantTimeEqual(received, expected) else {
            throw .integrityCheckFailed(reason: "MESSAGE-INTEGRITY does not match the key")
        }
    }

    /// Checks that a received datagram ends in a correct FINGERPRINT.
    public static func checkFingerprint(of datagram: ByteBuffer) throws(WebRTCError) {
        let bytes = Array(datagram.readableBytesView)
        guard let offset = attributeOffset(of: STUNAttribute.TypeCode.fingerprint, in: bytes) else {
            throw .integrityCheckFailed(reason: "no FINGERPRINT")
        }
        guard offset + fingerprintAttributeSize == bytes.count else {
            throw .integrityCheckFailed(reason: "FINGERPRINT is not the last attribute")
        }
        let valueOffset = offset + STUNAttribute.headerLength
        let received = bytes[valueOffset..<bytes.count].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard received == CRC32.checksum(bytes[..<offset]) ^ fingerprintXOR else {
            throw .integrityCheckFailed(reason: "FINGERPRINT does not match")
        }
    }

    /// Where the first attribute of `type` starts, walking the TLVs after the header.
    private static func attributeOffset(of type: UInt16, in bytes: [UInt8]) -> Int? {
        var offset = headerLength
        while offset + STUNAttribute.headerLength <= bytes.count {
            let attributeType = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            if attributeType == type { return offset }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            offset += STUNAttribute.headerLength + (length + 3) / 4 * 4
        }
        return nil
    }

    /// Makes the length field count the bytes written so far plus an attribute still to come.
    private static func setLength(of buffer: inout ByteBuffer, including next: Int) {
        let length = buffer.readableBytes - headerLength + next
        buffer.setInteger(UInt16(truncatingIfNeeded: length), at: buffer.readerIndex + lengthFieldOffset)
    }

    private static func setLength(of bytes: inout [UInt8], to length: Int) {
        bytes[lengthFieldOffset] = UInt8(truncatingIfNeeded: length >> 8)
        bytes[lengthFieldOffset + 1] = UInt8(truncatingIfNeeded: length)
    }
}

extension STUNAttribute {
    /// Rejects values the wire format cannot carry before they are encoded.
    func validateForEncoding() throws(WebRTCError) {
        switch self {
        case .username(let text) where text.utf8.count > Self.maximumUsernameBytes:
            throw .valueOutOfRange(field: "USERNAME bytes", value: text.utf8.count)
        case .errorCode(let error) where !STUNErrorCode.validCodes.contains(error.code)
            || error.reason.utf8.count > STUNErrorCode.maximumReasonBytes:
            throw .valueOutOfRange(field: "ERROR-CODE", value: error.code)
        case .unknown(_, let value) where value.count > Int(UInt16.max) - 3:
            throw .valueOutOfRange(field: "attribute length", value: value.count)
        default:
            return
        }
    }
}
