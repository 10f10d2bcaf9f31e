import COpenSSL

/// A bearer or access token as its SHA-256 digest, compared in constant time.
///
/// Comparing the tokens themselves leaks through timing how long the right one is, and a compare
/// that folds the length difference into a byte lets a token plus 256 NUL bytes match. Two digests
/// always have 32 bytes, so neither the time `==` takes nor its answer depends on the presented
/// token's length or on how many of its leading bytes are right. Used for WHEP bearer tokens and
/// for the HTTP API's `api_token` / `viewer_token`.
public struct TokenDigest: Sendable, Equatable {
    static let length = 32
    /// Empty when libcrypto failed (it does not for SHA-256): such a digest equals nothing.
    private let bytes: [UInt8]

    public init(of token: String) {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let input = Array(token.utf8)
        let succeeded = input.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha256(), nil) } == 1
        bytes = succeeded && length == Self.length ? Array(digest.prefix(Self.length)) : []
    }

    /// Every byte is compared, without an early exit.
    public static func == (lhs: TokenDigest, rhs: TokenDigest) -> Bool {
        guard lhs.bytes.count == length, rhs.bytes.count == length else { return false }
        return HMACSHA1.constantTimeEqual(lhs.bytes, rhs.bytes)
    }
}
