/// A local base and a remote candidate address (RFC 8445 §6.1.2), with the pair priority the
/// controlling agent orders its checks by.
public struct ICECandidatePair: Sendable, Hashable {
    public var local: TransportAddress
    public var remote: TransportAddress
    public var priority: UInt64

    public init(local: TransportAddress, remote: TransportAddress, priority: UInt64) {
        self.local = local
        self.remote = remote
        self.priority = priority
    }

    /// RFC 8445 §6.1.2.3: 2^32·MIN(G,D) + 2·MAX(G,D) + (G>D ? 1 : 0), G the controlling agent's
    /// candidate priority, D the controlled agent's.
    public static func priority(controlling: UInt32, controlled: UInt32) -> UInt64 {
        let (g, d) = (UInt64(controlling), UInt64(controlled))
        return (min(g, d) << 32) + 2 * max(g, d) + (g > d ? 1 : 0)
    }
}
