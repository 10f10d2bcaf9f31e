/// Every failure of the DTLS module. Cases carry what OpenSSL said (its error queue, flattened)
/// and say what to do about it.
public enum DTLSError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Key or certificate generation failed at `step`: libssl/libcrypto is broken; reinstall libssl3.
    case certificateGenerationFailed(step: String, openSSL: String)
    /// Setting up the SSL context or a connection failed at `step` (out of memory, or an OpenSSL
    /// without DTLS 1.2 / DTLS-SRTP).
    case setupFailed(step: String, openSSL: String)
    /// An SDP `a=fingerprint` value that is not "HASH-NAME HEX:HEX:…"; the offer or answer is broken.
    case malformedFingerprint(String)
    /// A hash function other than sha-1/sha-224/sha-256/sha-384/sha-512 (RFC 8122 §5); ask the peer for sha-256.
    case unsupportedFingerprintAlgorithm(String)
    /// The peer's certificate is not the one its SDP announced: the session description was altered
    /// or belongs to another connection. Reject the session.
    case fingerprintMismatch(expected: String, actual: String)
    /// The peer completed the handshake without agreeing on SRTP_AES128_CM_SHA1_80 (RFC 5764 use_srtp):
    /// it cannot carry WebRTC media.
    case srtpNotNegotiated
    /// The handshake failed (the peer's alert or a protocol error, OpenSSL's reason attached).
    case handshakeFailed(openSSL: String)
    /// The flight was retransmitted until OpenSSL gave up: the peer is gone or the path drops DTLS.
    case handshakeTimedOut
    /// `SSL_export_keying_material` refused to export the SRTP keys.
    case keyExportFailed(openSSL: String)
    /// An established connection broke on a record error or a fatal alert from the peer.
    case connectionFailed(openSSL: String)

    public var description: String {
        switch self {
        case .certificateGenerationFailed(let step, let openSSL):
            "DTLS certificate generation failed at \(step): \(openSSL) (reinstall libssl3)"
        case .setupFailed(let step, let openSSL): "DTLS setup failed at \(step): \(openSSL)"
        case .malformedFingerprint(let text): "malformed a=fingerprint '\(text)': expected 'sha-256 AB:CD:…'"
        case .unsupportedFingerprintAlgorithm(let name):
            "unsupported fingerprint hash '\(name)': use sha-256 (or sha-1/224/384/512)"
        case .fingerprintMismatch(let expected, let actual):
            "DTLS peer certificate fingerprint \(actual) does not match the SDP's \(expected): session rejected"
        case .srtpNotNegotiated: "the DTLS peer did not negotiate SRTP_AES128_CM_SHA1_80 (use_srtp)"
        case .handshakeFailed(let openSSL): "DTLS handshake failed: \(openSSL)"
        case .handshakeTimedOut: "DTLS handshake timed out: no answer from the peer after repeated retransmissions"
        case .keyExportFailed(let openSSL): "DTLS-SRTP key export failed: \(openSSL)"
        case .connectionFailed(let openSSL): "DTLS connection failed: \(openSSL)"
        }
    }
}
