/// What became of the server's latest request to move the stream elsewhere (enhanced RTMP's
/// `NetConnection.Connect.ReconnectRequest`), for the status line and `/api/status`: an operator
/// sees that the ingest moved (or why it did not) without reading the log.
public struct ReconnectRequestReport: Sendable, Equatable, Codable {
    public enum Outcome: String, Sendable, Codable {
        /// The new connection is being opened beside the live one.
        case switching
        /// The stream moved: the new connection carries it from a keyframe on, the old one is closed.
        case honoured
        /// The target may not have the credentials (``RedirectPolicy``) or is unusable; the stream stayed.
        case refused
        /// The new connection did not come up; the stream carries on on the old one.
        case failed
    }

    public var outcome: Outcome
    /// When the server asked, in seconds since 1970 (UTC).
    public var requestedAtUnixSeconds: Double
    /// When ``outcome`` was reached, in seconds since 1970 (UTC).
    public var decidedAtUnixSeconds: Double
    /// Where the server asked the stream to go, with the stream key masked.
    public var target: String
    /// Why it was refused or failed; nil otherwise.
    public var reason: String?

    public init(outcome: Outcome, requestedAtUnixSeconds: Double, decidedAtUnixSeconds: Double, target: String, reason: String? = nil) {
        self.outcome = outcome
        self.requestedAtUnixSeconds = requestedAtUnixSeconds
        self.decidedAtUnixSeconds = decidedAtUnixSeconds
        self.target = target
        self.reason = reason
    }
}
