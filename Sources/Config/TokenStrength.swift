import Foundation

/// How hard an access token (`api_token`, `viewer_token`, a whep output's `token`, `--whep-token`)
/// is to guess. Guesses are rate limited
/// per address, not in total, so the token itself must hold at least ``minimumBits`` of
/// randomness: `1234` or a word would fall to a botnet, 128 random bits never will.
///
/// Its randomness is estimated from the smallest alphabet that writes it (digits, hex, letters,
/// letters and digits, any printable character) times its length, which is what a token made by
/// `openssl rand -hex 16` or `-base64 16` really holds; a token that repeats few characters counts
/// as weak whatever its length.
public enum TokenStrength {
    public static let minimumBits = 128.0
    /// Fewer different characters than this is a pattern, not a random token (32 random hex
    /// digits have fewer than 8 different ones with odds below 10^-12).
    static let minimumDistinctCharacters = 8

    /// About how many random bits `token` holds, by its alphabet and length.
    public static func estimatedBits(_ token: String) -> Double {
        let characters = Array(token.unicodeScalars)
        guard Set(characters).count >= minimumDistinctCharacters else { return 0 }
        let isDigit = { (c: Unicode.Scalar) in ("0"..."9").contains(c) }
        let isLower = { (c: Unicode.Scalar) in ("a"..."z").contains(c) }
        let isUpper = { (c: Unicode.Scalar) in ("A"..."Z").contains(c) }
        let alphabet: Int
        if characters.allSatisfy(isDigit) {
            alphabet = 10
        } else if characters.allSatisfy({ $0.properties.isASCIIHexDigit }) {
            alphabet = 16
        } else {
            let classes = [(isLower, 26), (isUpper, 26), (isDigit, 10), ({ !isLower($0) && !isUpper($0) && !isDigit($0) }, 33)]
            alphabet = classes.filter { test, _ in characters.contains(where: test) }.reduce(0) { $0 + $1.1 }
        }
        return Double(characters.count) * log2(Double(max(alphabet, 2)))
    }

    /// A fresh token of 128 random bits in hex, as `openssl rand -hex 16` prints one.
    public static func example() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// How a config gives a token; the message for a weak one ends with it.
    public static let configForms = "inline, in env:NAME or file:PATH"

    /// Why `token` (the config's `key`, or a command-line flag) is too weak, with a good one to use
    /// instead and `forms`, how to give it; nil when it is strong enough.
    public static func weakness(of token: String, key: String, forms: String = configForms) -> String? {
        let bits = estimatedBits(token)
        guard bits < minimumBits else { return nil }
        return "\(key) is too easy to guess (about \(Int(bits)) bits of randomness, at least \(Int(minimumBits)) needed): "
            + "use a random one such as \(example()) (made by `openssl rand -hex 16`), \(forms)"
    }
}
