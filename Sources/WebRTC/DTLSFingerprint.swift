/// `a=fingerprint:<hash> <XX:XX:...>` (RFC 8122 §5): the hash of the certificate a DTLS peer will
/// present, which is what authenticates the media path in WebRTC. We produce and check sha-256.
public struct DTLSFingerprint: Sendable, Hashable {
    public var hashFunction: String
    public var digest: [UInt8]

    public init(hashFunction: String = "sha-256", digest: [UInt8]) {
        self.hashFunction = hashFunction
        self.digest = digest
    }

    init(sdp value: Substring) throws(SDPFieldError) {
        let fields = value.sdpFields
        guard fields.count == 2 else {
            throw SDPFieldError("fingerprint needs '<hash> <hex>'")
        }
        hashFunction = fields[0].lowercased()
        var bytes: [UInt8] = []
        for pair in fields[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.count == 2, let byte = UInt8(pair, radix: 16) else {
                throw SDPFieldError("fingerprint byte '\(pair.prefix(8))' is not two hex digits")
            }
            bytes.append(byte)
        }
        // sha-1 is 20 bytes, sha-512 64 (RFC 8122 §5).
        guard (16...64).contains(bytes.count) else {
            throw SDPFieldError("fingerprint of \(bytes.count) bytes")
        }
        digest = bytes
    }

    var sdpValue: String {
        hashFunction + " " + digest.map(hexByte).joined(separator: ":")
    }
}

private let hexDigits = Array("0123456789ABCDEF")

private func hexByte(_ byte: UInt8) -> String {
    String([hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
}
