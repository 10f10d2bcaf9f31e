import Testing
import WebRTC

/// Tokens compare by SHA-256 digest: the right one matches, and no other does, whatever its length
/// (shorter, longer, the right one with trailing NUL bytes, which a compare that folded the length
/// difference into one byte let through).
@Suite struct TokenDigestTests {
    static let token = "2a06825b5fb068fd77ba996b8897bd44"

    @Test func theRightTokenMatches() {
        #expect(TokenDigest(of: Self.token) == TokenDigest(of: Self.token))
    }

    @Test(arguments: [
        "", String(token.dropLast()), token + "0", token + String(repeating: "\u{0}", count: 256),
        token.uppercased(), String(token.reversed()),
    ])
    func anyOtherTokenDoesNotMatch(presented: String) {
        #expect(TokenDigest(of: presented) != TokenDigest(of: Self.token), "\(presented.debugDescription)")
    }
}
