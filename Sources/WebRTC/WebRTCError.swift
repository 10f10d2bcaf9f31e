/// Every failure of the WebRTC module (SDP, offer/answer, STUN, ICE), one enum so callers match on
/// one type and the fuzz tests can assert that hostile input never escapes as anything else.
///
/// Parsers throw these for malformed input; well-formed but unknown input is kept instead
/// (``SDPAttribute/unknown(name:value:)``, ``STUNAttribute/unknown(type:value:)``).
public enum WebRTCError: Error, Equatable, Sendable {
    // MARK: SDP (RFC 8866)

    /// A line of a session description that cannot be parsed; `number` counts from 1.
    case malformedLine(number: Int, line: String, reason: String)
    /// A required line (`v=`, `o=`, `s=`, `t=`) is missing.
    case missingLine(type: Character)
    /// Input over a configured bound (``SDPLimits``): total bytes, line length, sections, attributes.
    case tooLarge(what: String, limit: Int)

    // MARK: Offer/answer (RFC 8829, RFC 9429)

    /// The remote description lacks something negotiation needs (ICE credentials, a fingerprint, a mid).
    case missingRemoteParameter(String)
    /// No media section of the remote description can carry any codec we can send.
    case noCommonCodec(mid: String?)
    /// The answer does not fit our offer (unknown mid, a payload type we never offered).
    case answerMismatch(String)

    // MARK: STUN (RFC 8489)

    /// The message needs `needed` bytes but only `available` are left.
    case truncated(needed: Int, available: Int)
    /// The header is not STUN's: leading bits, magic cookie or a length that is not a multiple of 4.
    case notSTUN(reason: String)
    /// An attribute's value has a length or content its type cannot have.
    case invalidAttribute(type: UInt16, reason: String)
    /// A MESSAGE-INTEGRITY or FINGERPRINT check that was required failed or had nothing to check.
    case integrityCheckFailed(reason: String)
    /// A connectivity check of ours got an error response, or a response from another address
    /// than the one checked (RFC 8445 §7.2.5.2: the path is not symmetric).
    case checkFailed(remote: TransportAddress, errorCode: Int?)
    /// A value does not fit its wire field (a USERNAME over 513 bytes, an error code outside 300–699).
    case valueOutOfRange(field: String, value: Int)
}
