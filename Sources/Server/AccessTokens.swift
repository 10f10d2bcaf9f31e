import COpenSSL

/// The tokens that grant each role (`api_token` for admin, `viewer_token` for viewer). Without an
/// admin token the server is open: every request is an admin's (safe on loopback only, which
/// `serve` enforces unless the config says `auth: none`).
struct AccessTokens: Sendable, Equatable {
    var admin: String?
    var viewer: String?

    var isOpen: Bool { admin == nil }

    /// The role a presented token grants, or nil for a wrong one. Compared in constant time.
    func role(presenting token: String) -> AccessRole? {
        let presented = Self.digest(token)
        // Both comparisons always run, so the time taken does not tell which token was close.
        let isAdmin = admin.map { Self.constantTimeEqual(presented, Self.digest($0)) } ?? false
        let isViewer = viewer.map { Self.constantTimeEqual(presented, Self.digest($0)) } ?? false
        return isAdmin ? .admin : isViewer ? .viewer : nil
    }

    /// SHA-256 of the token's bytes. Tokens are compared by digest: two digests always have the
    /// same length, so neither the comparison's time nor its result depends on how long the
    /// presented token is (a token plus trailing NUL bytes is a different token).
    static func digest(_ token: String) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let bytes = Array(token.utf8)
        let succeeded = bytes.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha256(), nil) } == 1
        // SHA-256 in libcrypto does not fail on a valid context; if it ever did, no token matches.
        guard succeeded, length == 32 else { return [] }
        return Array(digest.prefix(32))
    }

    /// Compares every byte of two equal-length digests, so the time taken does not reveal a
    /// matching prefix; digests of another length (a failed digest) never match.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == 32, b.count == 32 else { return false }
        var difference: UInt8 = 0
        for index in 0..<32 { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
