/// An SRTP protection profile: cipher, authentication and key sizes. Named as in RFC 4568's crypto
/// suites and RFC 5764's DTLS-SRTP profiles (SRTP_AES128_CM_HMAC_SHA1_80 is the same suite).
public enum SRTPProfile: Sendable, Equatable {
    /// AES-128 counter mode, HMAC-SHA1 with an 80-bit tag (RFC 3711's default; ffmpeg's
    /// `srtp_out_suite AES_CM_128_HMAC_SHA1_80`; mandatory for WebRTC DTLS-SRTP).
    case aesCM128HMACSHA1_80

    public var masterKeyLength: Int {
        switch self { case .aesCM128HMACSHA1_80: 16 }
    }

    public var masterSaltLength: Int {
        switch self { case .aesCM128HMACSHA1_80: 14 }
    }

    /// The RFC 4568 crypto-suite name for an SDP `a=crypto` line.
    public var sdesName: String {
        switch self { case .aesCM128HMACSHA1_80: "AES_CM_128_HMAC_SHA1_80" }
    }
}
