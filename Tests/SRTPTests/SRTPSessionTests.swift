import NIOCore
import SRTP
import Testing

/// libsrtp's own known-answer vectors (srtp_driver.c, `srtp_validate`), then round trips and the
/// failures a receiver must report rather than pass through.
@Suite struct SRTPSessionTests {
    static let keyAndSalt: [UInt8] = [
        0xe1, 0xf9, 0x7a, 0x0d, 0x3e, 0x01, 0x8b, 0xe0, 0xd6, 0x4f, 0xa3, 0x2c, 0x06, 0xde, 0x41, 0x39, // master key
        0x0e, 0xc6, 0x75, 0xad, 0x49, 0x8a, 0xfe, 0xeb, 0xb6, 0x96, 0x0b, 0x3a, 0xab, 0xe6, // master salt
    ]
    // V=2, PT=15, seq=0x1234, ts=0xdecafbad, SSRC=0xcafebabe, 16 bytes of 0xab.
    static let rtpPlaintext: [UInt8] = [0x80, 0x0f, 0x12, 0x34, 0xde, 0xca, 0xfb, 0xad, 0xca, 0xfe, 0xba, 0xbe]
        + [UInt8](repeating: 0xab, count: 16)
    static let srtpCiphertext: [UInt8] = [
        0x80, 0x0f, 0x12, 0x34, 0xde, 0xca, 0xfb, 0xad, 0xca, 0xfe, 0xba, 0xbe, // header stays clear
        0x4e, 0x55, 0xdc, 0x4c, 0xe7, 0x99, 0x78, 0xd8, 0x8c, 0xa4, 0xd2, 0x15, 0x94, 0x9d, 0x24, 0x02, // AES-CM payload
        0xb7, 0x8d, 0x6a, 0xcc, 0x99, 0xea, 0x17, 0x9b, 0x8d, 0xbb, // 80-bit HMAC-SHA1 tag
    ]
    // SR header (RC=1, len=11), SSRC=0xcafebabe, 16 bytes of 0xab.
    static let rtcpPlaintext: [UInt8] = [0x81, 0xc8, 0x00, 0x0b, 0xca, 0xfe, 0xba, 0xbe] + [UInt8](repeating: 0xab, count: 16)
    static let srtcpCiphertext: [UInt8] = [
        0x81, 0xc8, 0x00, 0x0b, 0xca, 0xfe, 0xba, 0xbe, // header + SSRC stay clear
        0x71, 0x28, 0x03, 0x5b, 0xe4, 0x87, 0xb9, 0xbd, 0xbe, 0xf8, 0x90, 0x41, 0xf9, 0x77, 0xa5, 0xa8, // encrypted
        0x80, 0x00, 0x00, 0x01, // E=1, SRTCP index 1
        0x99, 0x3e, 0x08, 0xcd, 0x54, 0xd6, 0xc1, 0x23, 0x07, 0x98, // tag
    ]

    static func keyingMaterial() throws -> SRTPKeyingMaterial { try SRTPKeyingMaterial(concatenated: keyAndSalt) }

    @Test func protectMatchesLibsrtpVector() throws {
        let sender = try SRTPSession(keyingMaterial: Self.keyingMaterial(), role: .sender)
        var packet = ByteBuffer(bytes: Self.rtpPlaintext)
        try sender.protect(rtp: &packet)
        #expect(Array(packet.readableBytesView) == Self.srtpCiphertext)
    }

    @Test func protectRTCPMatchesLibsrtpVector() throws {
        let sender = try SRTPSession(keyingMaterial: Self.keyingMaterial(), role: .sender)
        var packet = ByteBuffer(bytes: Self.rtcpPlaintext)
        try sender.protectRTCP(&packet)
        #expect(Array(packet.readableBytesView) == Self.srtcpCiphertext)
    }

    @Test func roundTripInPlaceAtAnOffset() throws {
        let key = SRTPKeyingMaterial.random()
        let sender = try SRTPSession(keyingMaterial: key, role: .sender)
        let receiver = try SRTPSession(keyingMaterial: key, role: .receiver)
        // A reused buffer whose reader index is not 0, as the sender's per-frame buffer has it.
        var buffer = ByteBuffer(bytes: [1, 2, 3] + Self.rtpPlaintext)
        buffer.moveReaderIndex(forwardBy: 3)
        try sender.protect(rtp: &buffer)
        #expect(buffer.readableBytes == Self.rtpPlaintext.count + 10)
        #expect(Array(buffer.readableBytesView.prefix(12)) == Array(Self.rtpPlaintext.prefix(12)), "header in the clear")
        #expect(Array(buffer.readableBytesView.dropFirst(12).prefix(16)) != Array(Self.rtpPlaintext.dropFirst(12)), "payload encrypted")
        try receiver.unprotect(srtp: &buffer)
        #expect(Array(buffer.readableBytesView) == Self.rtpPlaintext)

        var rtcp = ByteBuffer(bytes: Self.rtcpPlaintext)
        try sender.protectRTCP(&rtcp)
        try receiver.unprotectRTCP(&rtcp)
        #expect(Array(rtcp.readableBytesView) == Self.rtcpPlaintext)
    }

    /// Every byte of the packet is covered: flipping any one fails authentication.
    @Test func tamperingFailsAuthentication() throws {
        let key = try Self.keyingMaterial()
        for offset in [0, 5, 11, 12, 27, 30, 37] {
            let receiver = try SRTPSession(keyingMaterial: key, role: .receiver)
            var bytes = Self.srtpCiphertext
            bytes[offset] ^= 0x01
            var packet = ByteBuffer(bytes: bytes)
            #expect(throws: SRTPError.authenticationFailed, "byte \(offset)") { try receiver.unprotect(srtp: &packet) }
        }
        let receiver = try SRTPSession(keyingMaterial: key, role: .receiver)
        var rtcp = ByteBuffer(bytes: Self.srtcpCiphertext)
        rtcp.setInteger(UInt8(0x72), at: 8)
        #expect(throws: SRTPError.authenticationFailed) { try receiver.unprotectRTCP(&rtcp) }
    }

    @Test func wrongKeyFailsAuthentication() throws {
        let receiver = try SRTPSession(keyingMaterial: SRTPKeyingMaterial.random(), role: .receiver)
        var packet = ByteBuffer(bytes: Self.srtpCiphertext)
        #expect(throws: SRTPError.authenticationFailed) { try receiver.unprotect(srtp: &packet) }
    }

    @Test func replayIsRejected() throws {
        let receiver = try SRTPSession(keyingMaterial: Self.keyingMaterial(), role: .receiver)
        var first = ByteBuffer(bytes: Self.srtpCiphertext)
        try receiver.unprotect(srtp: &first)
        var again = ByteBuffer(bytes: Self.srtpCiphertext)
        #expect(throws: SRTPError.replayed) { try receiver.unprotect(srtp: &again) }
    }

    /// A NACK answer re-sends the same packet: the sender allows it and the result is identical.
    @Test func senderMayProtectTheSamePacketAgain() throws {
        let sender = try SRTPSession(keyingMaterial: Self.keyingMaterial(), role: .sender)
        var first = ByteBuffer(bytes: Self.rtpPlaintext)
        var second = ByteBuffer(bytes: Self.rtpPlaintext)
        try sender.protect(rtp: &first)
        try sender.protect(rtp: &second)
        #expect(first == second)
    }

    @Test func malformedInputIsATypedError() throws {
        let receiver = try SRTPSession(keyingMaterial: Self.keyingMaterial(), role: .receiver)
        for length in [0, 1, 4, 11] {
            var packet = ByteBuffer(bytes: Array(Self.srtpCiphertext.prefix(length)))
            #expect(throws: SRTPError.self, "\(length) bytes") { try receiver.unprotect(srtp: &packet) }
        }
    }

    @Test func keyingMaterialForms() throws {
        let key = try Self.keyingMaterial()
        #expect(key.masterKey == Array(Self.keyAndSalt.prefix(16)))
        #expect(key.masterSalt == Array(Self.keyAndSalt.suffix(14)))
        #expect(key.base64 == "4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOqvm")
        #expect(try SRTPKeyingMaterial(base64: key.base64) == key)
        #expect(throws: SRTPError.invalidBase64("not base64!")) { try SRTPKeyingMaterial(base64: "not base64!") }
        #expect(throws: SRTPError.invalidKeyingMaterialLength(expected: 30, actual: 29)) {
            try SRTPKeyingMaterial(concatenated: Array(Self.keyAndSalt.prefix(29)))
        }
        #expect(SRTPKeyingMaterial.random() != SRTPKeyingMaterial.random())
    }
}
