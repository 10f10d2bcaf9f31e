/// What one output delivered, for `/api/status` at any time and the end of `livepush stream`: the
/// numbers a user who streamed a long event reads to know whether the receiver got it all.
/// Kept by ``DeliveryHealth``; the output adds its drop reasons.
public struct DeliveryReport: Sendable, Equatable, Codable {
    /// What counts as the receiver's acknowledgement, e.g. "RTMP acknowledgement".
    public var evidence: String
    /// Seconds spent in each state (healthy, degraded, stalled, reconnecting); absent states are 0.
    public var seconds: [DeliveryHealth.State: Double] = [:]
    /// Connections that were carrying media and ended, by cause ("stalled", "closed by server", …).
    public var reconnectCauses: [String: Int] = [:]
    /// Bytes handed to the transport, over all connections (protocol headers included).
    public var bytesSent: Int64 = 0
    /// Bytes the receiver acknowledged, over all connections.
    public var bytesAcknowledged: Int64 = 0
    /// Frames this output dropped, by reason (the output's own names).
    public var framesDropped: [String: Int] = [:]
    /// The longest interval between two acknowledgements that each took new media, across
    /// reconnects: the longest a viewer of this destination could have gone without new media.
    /// nil until two acknowledgements arrived.
    public var longestGapSeconds: Double?
    /// Why there is no health yet, when the receiver has given no evidence at all (a plain RTP
    /// receiver that sends no RTCP): the output's health is then nil, never "stalled".
    public var unknownBecause: String?

    public init(evidence: String, unknownBecause: String? = nil, bytesSent: Int64 = 0) {
        self.evidence = evidence
        self.unknownBecause = unknownBecause
        self.bytesSent = bytesSent
    }

    public var reconnects: Int { reconnectCauses.values.reduce(0, +) }

    /// One line for the end of `livepush stream`, e.g. "delivery: healthy 58.1 s, degraded 0.4 s,
    /// stalled 5.5 s, reconnecting 1.2 s; 1 reconnect (stalled 1); 9.1 MB sent, 8.7 MB acknowledged;
    /// longest gap between RTMP acknowledgements 7.9 s".
    public var summary: String {
        if let unknownBecause { return "delivery unknown: \(unknownBecause); \(DeliveryHealth.describe(bytes: bytesSent)) sent" }
        let times = [DeliveryHealth.State.healthy, .degraded, .stalled, .reconnecting]
            .map { "\($0.rawValue) \(String(format1: seconds[$0] ?? 0)) s" }.joined(separator: ", ")
        let causes = reconnectCauses.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        var line = "delivery: \(times); \(reconnects) reconnect\(reconnects == 1 ? "" : "s")"
        if !causes.isEmpty { line += " (\(causes))" }
        line += "; \(DeliveryHealth.describe(bytes: bytesSent)) sent, \(DeliveryHealth.describe(bytes: bytesAcknowledged)) acknowledged"
        let drops = framesDropped.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        if !drops.isEmpty { line += "; dropped " + drops.map { "\($0.value) \($0.key)" }.joined(separator: ", ") }
        if let longestGapSeconds { line += "; longest gap between \(evidence)s \(String(format1: longestGapSeconds)) s" }
        return line
    }
}
