import Foundation

/// An SRTP master key and master salt (RFC 3711 §8.2), independent of where they came from: an SDP
/// `a=crypto` line (RFC 4568, base64 of key ‖ salt), a random draw, or a DTLS-SRTP key export
/// (RFC 5764 §4.2 hands each direction a key and a salt: pass them to ``init(masterKey:masterSalt:profile:)``).
public struct SRTPKeyingMaterial: Sendable, Equatable {
    public let profile: SRTPProfile
    public let masterKey: [UInt8]
    public let masterSalt: [UInt8]

    public init(masterKey: [UInt8], masterSalt: [UInt8], profile: SRTPProfile = .aesCM128HMACSHA1_80) throws(SRTPError) {
        guard masterKey.count == profile.masterKeyLength else {
            throw .invalidKeyingMaterialLength(expected: profile.masterKeyLength, actual: masterKey.count)
        }
        guard masterSalt.count == profile.masterSaltLength else {
            throw .invalidKeyingMaterialLength(expected: profile.masterSaltLength, actual: masterSalt.count)
        }
        self.profile = profile
        self.masterKey = masterKey
        self.masterSalt = masterSalt
    }

    /// From key ‖ salt in one array (the SDES `inline:` layout and ffmpeg's `srtp_out_params`).
    public init(concatenated bytes: [UInt8], profile: SRTPProfile = .aesCM128HMACSHA1_80) throws(SRTPError) {
        guard bytes.count == profile.masterKeyLength + profile.masterSaltLength else {
            throw .invalidKeyingMaterialLength(expected: profile.masterKeyLength + profile.masterSaltLength, actual: bytes.count)
        }
        try self.init(masterKey: Array(bytes.prefix(profile.masterKeyLength)),
                      masterSalt: Array(bytes.suffix(profile.masterSaltLength)), profile: profile)
    }

    /// From the base64 text of key ‖ salt.
    public init(base64 text: String, profile: SRTPProfile = .aesCM128HMACSHA1_80) throws(SRTPError) {
        guard let data = Data(base64Encoded: text) else { throw .invalidBase64(text) }
        try self.init(concatenated: [UInt8](data), profile: profile)
    }

    /// Fresh keying material from the system's cryptographically secure generator.
    public static func random(profile: SRTPProfile = .aesCM128HMACSHA1_80) -> SRTPKeyingMaterial {
        var generator = SystemRandomNumberGenerator()
        func draw(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) } }
        return SRTPKeyingMaterial(profile: profile, uncheckedKey: draw(profile.masterKeyLength), salt: draw(profile.masterSaltLength))
    }

    /// For lengths taken from the profile itself.
    private init(profile: SRTPProfile, uncheckedKey: [UInt8], salt: [UInt8]) {
        self.profile = profile
        masterKey = uncheckedKey
        masterSalt = salt
    }

    /// Key ‖ salt, the layout libsrtp and RFC 4568 use.
    public var concatenated: [UInt8] { masterKey + masterSalt }

    /// Base64 of key ‖ salt, for `a=crypto:… inline:` and `--srtp-key`.
    public var base64: String { Data(concatenated).base64EncodedString() }
}
