/// `a=sendrecv` / `sendonly` / `recvonly` / `inactive` (RFC 8866 §6.7), from the point of view of
/// the side that wrote the description.
public enum MediaDirection: String, Sendable, Hashable, CaseIterable {
    case sendrecv, sendonly, recvonly, inactive

    /// What an answerer that only sends may answer (RFC 8829 §5.3.1): it sends where the offerer
    /// receives, and goes inactive where the offerer does not.
    public var answerForSender: MediaDirection {
        switch self {
        case .sendrecv, .recvonly: .sendonly
        case .sendonly, .inactive: .inactive
        }
    }

    /// Whether the side that wrote this direction wants to receive media.
    public var receives: Bool {
        self == .sendrecv || self == .recvonly
    }
}
