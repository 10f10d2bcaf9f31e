import COpenSSL

/// HMAC-SHA1 through OpenSSL's one-shot `HMAC()`: the MESSAGE-INTEGRITY of STUN short-term
/// credentials (RFC 8489 §14.5; the key is the ICE password as UTF-8, RFC 8445 §7.2.2).
enum HMACSHA1 {
    static let digestLength = 20

    static func authenticate(_ message: [UInt8], key: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                HMAC(EVP_sha1(), keyBytes.baseAddress, Int32(keyBytes.count), messageBytes.bindMemory(to: UInt8.self).baseAddress,
                     messageBytes.count, &digest, &length) != nil
            }
        }
        // HMAC only fails on allocation failure; an all-zero tag then never verifies.
        return ok ? Array(digest.prefix(Int(length))) : [UInt8](repeating: 0, count: digestLength)
    }

    /// Compares without an early exit, so timing does not reveal how many bytes matched.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return zip(lhs, rhs).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
