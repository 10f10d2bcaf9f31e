/// Failures of the RTP output, each saying what to change.
public enum RTPOutputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not `rtp://HOST:PORT`.
    case invalidURL(String, reason: String)
    /// The host did not resolve to an address.
    case unresolvableHost(String)
    /// The local UDP socket could not be opened.
    case socketFailed(String)

    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): "invalid RTP destination '\(url)': \(reason) (expected rtp://HOST:PORT, e.g. rtp://127.0.0.1:5004)"
        case .unresolvableHost(let host): "cannot resolve RTP destination host '\(host)'"
        case .socketFailed(let detail): "cannot open the RTP socket: \(detail)"
        }
    }
}
