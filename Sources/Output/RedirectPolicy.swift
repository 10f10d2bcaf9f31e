/// Where a server may move an output's credentials (an RTMP stream key, a WHIP bearer token):
/// YAML `follow_redirects` on rtmp and whip outputs. An enhanced-RTMP ReconnectRequest names a new
/// `tcUrl`, a WHIP endpoint answers 307/308 or puts its session at a `Location`; each would take the
/// key or the token along, so a server (or whoever answers in its name) could hand them to any host.
///
/// - TLS is never dropped (`rtmps://` → `rtmp://`, `https://` → `http://`), whatever the policy:
///   the credentials would cross the network in the clear.
/// - `same_host` (the default): only the configured host, on any port.
/// - `any`: any host (a service that balances its ingest across hosts; the operator trusts it).
public enum RedirectPolicy: String, Sendable, CaseIterable {
    case sameHost = "same_host"
    case any

    /// One end of a move: whether it speaks TLS, and its host.
    public struct Place: Sendable, Equatable {
        public var usesTLS: Bool
        public var host: String

        public init(usesTLS: Bool, host: String) {
            self.usesTLS = usesTLS
            self.host = host
        }
    }

    /// Why credentials may not go from `origin` (the configured URL) to `target`, saying what to
    /// change if the move is wanted; nil when they may.
    public func refusal(from origin: Place, to target: Place) -> String? {
        if origin.usesTLS, !target.usesTLS {
            return "it would drop TLS (to \(target.host) without encryption), which livepush never does"
        }
        if self == .sameHost, origin.host.lowercased() != target.host.lowercased() {
            return "it is another host (\(target.host), not \(origin.host)): set follow_redirects: any on this output if you trust it"
        }
        return nil
    }
}
