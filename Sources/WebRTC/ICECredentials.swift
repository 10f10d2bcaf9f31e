/// An ICE username fragment and password (RFC 8445 §5.3, RFC 8839 §5.4): ice-chars (ALPHA, DIGIT,
/// `+`, `/`), the ufrag at least 4 characters and 24 bits of randomness, the password at least 22
/// characters and 128 bits. A new pair means an ICE restart.
public struct ICECredentials: Sendable, Hashable {
    public var ufrag: String
    public var pwd: String

    public init(ufrag: String, pwd: String) {
        self.ufrag = ufrag
        self.pwd = pwd
    }

    /// Alphanumerics only (URL- and SDP-safe): 8 characters ≈ 47 bits, 24 characters ≈ 142 bits.
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
    static let ufragLength = 8
    static let pwdLength = 24

    public static func random(using generator: inout some RandomNumberGenerator) -> ICECredentials {
        func text(_ length: Int) -> String {
            String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        }
        return ICECredentials(ufrag: text(ufragLength), pwd: text(pwdLength))
    }

    public static func random() -> ICECredentials {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// The STUN USERNAME of a check sent to the agent holding `receiver` (RFC 8445 §7.2.2).
    static func username(receiver: ICECredentials, sender: ICECredentials) -> String {
        "\(receiver.ufrag):\(sender.ufrag)"
    }
}
