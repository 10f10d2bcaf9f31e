/// Every failure of the SRTP module. Cases say what went wrong and what to do about it; the raw
/// libsrtp status (`srtp_err_status_t`) is kept where the cause is inside the library.
public enum SRTPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `srtp_init` failed: libsrtp2 is broken or mismatched; reinstall libsrtp2.
    case libraryInitializationFailed(status: Int)
    /// Keying material of the wrong size for the profile (AES_CM_128_HMAC_SHA1_80: 16 key + 14 salt bytes).
    case invalidKeyingMaterialLength(expected: Int, actual: Int)
    /// Keying material text that is not base64 (RFC 4568 `inline:` keys are base64 of key ‖ salt).
    case invalidBase64(String)
    /// `srtp_create` refused the policy.
    case sessionCreationFailed(status: Int)
    /// The packet's authentication tag does not match: it was altered, or sender and receiver use
    /// different keys. Drop the packet; if every packet fails, check the key on both sides.
    case authenticationFailed
    /// A packet index seen before or too old for the replay window (RFC 3711 §3.3.2). Drop it.
    case replayed
    /// Too short to be an (S)RTP/(S)RTCP packet, or a header libsrtp cannot parse. Drop it.
    case malformedPacket(length: Int)
    /// Any other libsrtp failure during `operation`.
    case operationFailed(operation: String, status: Int)

    public var description: String {
        switch self {
        case .libraryInitializationFailed(let status): "libsrtp2 failed to initialize (status \(status)); reinstall libsrtp2"
        case .invalidKeyingMaterialLength(let expected, let actual):
            "SRTP keying material must be \(expected) bytes (master key then salt), got \(actual)"
        case .invalidBase64(let text): "SRTP key '\(text)' is not base64; give 30 bytes in base64 or 'generate'"
        case .sessionCreationFailed(let status): "libsrtp2 refused the SRTP policy (status \(status))"
        case .authenticationFailed: "SRTP authentication failed: the packet was altered or the keys differ"
        case .replayed: "SRTP replay check failed: packet index already seen or too old"
        case .malformedPacket(let length): "not an SRTP/SRTCP packet (\(length) bytes)"
        case .operationFailed(let operation, let status): "libsrtp2 \(operation) failed (status \(status))"
        }
    }
}
