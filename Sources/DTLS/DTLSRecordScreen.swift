/// Checks the records of a datagram from the peer before OpenSSL reads them, once the connection
/// is up (RFC 6347 §4.1.2.7: invalid records are discarded silently).
///
/// OpenSSL discards a forged record of plausible size by itself, but Debian's 3.0.19 is left unable
/// to read anything more after a protected record too short to hold the cipher's nonce and tag
/// (SSL_read keeps failing with nothing queued): one forged datagram would end a viewer's session.
/// So such records, and records whose length runs past the datagram, never reach it.
struct DTLSRecordScreen {
    /// The shortest protected record (epoch above 0) the negotiated cipher can produce, one byte of payload.
    let minimumProtectedLength: Int

    /// From the cipher's OpenSSL name: AES-GCM/CCM add an 8-byte explicit nonce and a 16-byte tag,
    /// ChaCha20-Poly1305 a 16-byte tag; CBC suites an IV and a MAC, 32 bytes at the least.
    init(cipherName: String) {
        if cipherName.contains("CHACHA20") {
            minimumProtectedLength = 17
        } else if cipherName.contains("GCM") || cipherName.contains("CCM") {
            minimumProtectedLength = 25
        } else {
            minimumProtectedLength = 32
        }
    }

    /// The records of `datagram` worth giving to OpenSSL, and how many were dropped.
    func screen(_ datagram: [UInt8]) -> (kept: [UInt8], dropped: Int) {
        var kept: [UInt8] = []
        var dropped = 0
        var offset = 0
        while offset < datagram.count {
            let header = DTLSRecordFramer.headerLength
            guard datagram.count - offset >= header else { return (kept, dropped + 1) }
            let epoch = Int(datagram[offset + 3]) << 8 | Int(datagram[offset + 4])
            let length = Int(datagram[offset + DTLSRecordFramer.lengthOffset]) << 8 | Int(datagram[offset + DTLSRecordFramer.lengthOffset + 1])
            guard offset + header + length <= datagram.count else { return (kept, dropped + 1) }
            if epoch > 0 && length < minimumProtectedLength {
                dropped += 1
            } else {
                kept.append(contentsOf: datagram[offset..<offset + header + length])
            }
            offset += header + length
        }
        return (kept, dropped)
    }
}
