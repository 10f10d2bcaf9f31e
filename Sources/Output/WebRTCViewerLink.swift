/// One WebRTC viewer's own link, as the WHEP endpoint sees it: the bandwidth estimate from its
/// transport-cc feedback (or its REMB), which rendition it gets and how often it moved between
/// them. A status field, like ``SRTLinkStatistics`` for SRT.
public struct WebRTCViewerLink: Sendable, Equatable, Codable {
    /// "transport-cc" (send-side estimate from feedback), "remb" (the viewer's own estimate) or
    /// "none" (no estimate yet).
    public var estimateSource: String
    public var estimateBitsPerSecond: Int?
    /// transport-cc feedback packets received from this viewer.
    public var transportFeedbackReceived: Int
    /// The loss fraction its last judged feedback reported (0…1), with transport-cc.
    public var feedbackLossFraction: Double?
    /// The rendition index (0 = top) and name the viewer gets.
    public var rendition: Int
    public var renditionName: String?
    /// Switches between renditions since the viewer connected.
    public var renditionSwitches: Int
    /// Seconds on each rendition, by index.
    public var secondsOnRendition: [Double]
    /// Video frames its pacer refused (its queue past the time bound), and delta frames held after
    /// them until a key frame: what a link narrower than the stream cost before a switch.
    public var framesDroppedAtPacer: Int
    public var framesHeldAtPacer: Int
    /// Probe clusters sent to test the link before an up-switch, and those whose result did not
    /// hold the next rendition (from the second failure in a row, each doubles the wait before the next, up to a minute).
    public var probesStarted: Int
    public var probesFailed: Int
    /// The viewer asked for low latency (WHEP `?latency=low`, what livepush's own pages ask) and its
    /// offer had the playout-delay extension: its frames tell it to keep at most a few frames of
    /// jitter buffer. The page's latency figure is only comparable between viewers of the same kind.
    public var lowLatency: Bool

    public init(estimateSource: String, estimateBitsPerSecond: Int?, transportFeedbackReceived: Int, feedbackLossFraction: Double?,
                rendition: Int, renditionName: String?, renditionSwitches: Int, secondsOnRendition: [Double],
                framesDroppedAtPacer: Int = 0, framesHeldAtPacer: Int = 0, probesStarted: Int = 0, probesFailed: Int = 0,
                lowLatency: Bool = false) {
        self.estimateSource = estimateSource
        self.estimateBitsPerSecond = estimateBitsPerSecond
        self.transportFeedbackReceived = transportFeedbackReceived
        self.feedbackLossFraction = feedbackLossFraction
        self.rendition = rendition
        self.renditionName = renditionName
        self.renditionSwitches = renditionSwitches
        self.secondsOnRendition = secondsOnRendition
        self.framesDroppedAtPacer = framesDroppedAtPacer
        self.framesHeldAtPacer = framesHeldAtPacer
        self.probesStarted = probesStarted
        self.probesFailed = probesFailed
        self.lowLatency = lowLatency
    }
}
