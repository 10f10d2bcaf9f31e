import RTPOutput

/// What the WHEP endpoint reports: viewers, per-viewer RTP sender counters, drops.
public struct WHEPStatistics: Sendable {
    public var viewers = 0
    public var connectedViewers = 0
    public var framesBroadcast = 0
    public var framesDropped = 0
    /// SRTP bytes sent to all viewers, past and present.
    public var bytesSent: Int64 = 0
    public var datagramsDropped = 0
    public var keyFramesRequested = 0
    public var lastClosedReason: String?
    public var lastError: String?
    /// By WHEP session id.
    public var viewerStatistics: [String: RTPSenderStatistics] = [:]

    public init() {}
}
