import Output
import RTPOutput

/// What the WHEP endpoint reports: viewers, per-viewer RTP sender counters, drops.
public struct WHEPStatistics: Sendable {
    public var viewers = 0
    public var connectedViewers = 0
    public var framesBroadcast = 0
    /// Frames the hand-off queue to the event loop had no room for.
    public var framesDropped = 0
    /// ``framesDropped`` by rendition index (the camera's renditions, top first): each rendition
    /// has its own share of the queue (``WHEPConfiguration/queueCapacity`` frames).
    public var framesDroppedByRendition: [Int] = [0]
    /// Frames not written because the socket's backlog was past its limit (``SocketBacklogGate``).
    public var framesDroppedAtSocket = 0
    /// Delta frames not written after such a drop, until the next key frame.
    public var framesHeldAtSocket = 0
    public var audioFramesBroadcast = 0
    public var audioFramesDropped = 0
    public var datagramsDropped = 0
    public var keyFramesRequested = 0
    /// Estimates from viewers (REMB, or transport-cc feedback with one rendition), and the bitrate
    /// they led the shared encoder to (when adaptive).
    public var rembReceived = 0
    public var encoderBitrateBitsPerSecond: Int?
    public var bitrateChanges = 0
    /// The lowest bitrate the estimates have set so far.
    public var lowestEncoderBitrateBitsPerSecond: Int?
    public var lastClosedReason: String?
    /// By WHEP session id, connected viewers only: whether each takes the media (its RTCP receiver reports).
    public var viewerHealth: [String: DeliveryHealth.State] = [:]
    /// Viewers closed because their receiver reports stopped advancing (``WHEPConfiguration/stallTimeoutSeconds``).
    public var viewersClosedStalled = 0
    public var lastError: String?
    /// Summed over every viewer, past and present.
    public var totals = Totals()
    /// The latest frame's rotation (0 when the encoder turned the pixels, or nothing is rotated).
    public var lastFrameRotationDegrees = 0
    /// By WHEP session id: the video stream's counters.
    public var viewerStatistics: [String: RTPSenderStatistics] = [:]
    /// By WHEP session id: the audio stream's counters, for viewers that negotiated Opus.
    public var viewerAudioStatistics: [String: RTPSenderStatistics] = [:]
    /// By WHEP session id, connected viewers only: the bandwidth estimate, rendition and switches.
    public var viewerLinks: [String: WebRTCViewerLink] = [:]
    /// The latest bandwidth estimate any viewer had (kept after it leaves, for the run report).
    public var lastViewerEstimate: (bitsPerSecond: Int, source: String)?

    public init() {}
}

extension WHEPStatistics {
    /// Counters summed over viewers (a viewer's counters join these when it leaves).
    public struct Totals: Sendable, Equatable {
        public var videoPacketsSent = 0
        public var audioPacketsSent = 0
        public var nacksReceived = 0
        public var packetsRetransmitted = 0
        public var rtxPacketsSent = 0
        /// transport-cc feedback packets from viewers.
        public var transportFeedbackReceived = 0
        /// Link outages viewers' transport-cc feedback showed (each answered with a key frame).
        public var transportOutages = 0
        /// SRTP and SRTCP bytes.
        public var bytesSent: Int64 = 0

        public init() {}

        mutating func add(_ media: WebRTCMediaSender.Statistics) {
            videoPacketsSent += media.video?.packetsSent ?? 0
            audioPacketsSent += media.audio?.packetsSent ?? 0
            nacksReceived += media.video?.nacksReceived ?? 0
            packetsRetransmitted += media.video?.packetsRetransmitted ?? 0
            rtxPacketsSent += media.rtxPacketsSent
            transportFeedbackReceived += media.transportFeedbackReceived
            transportOutages += media.transportOutages
            bytesSent += (media.video?.bytesSent ?? 0) + (media.audio?.bytesSent ?? 0)
        }
    }
}
