import DTLS
import NIOCore
import RTPOutput

/// How the built-in WHEP endpoint listens and treats viewers.
public struct WHEPConfiguration: Sendable {
    /// The UDP address and port every viewer's media shares (port 0: any free port).
    public var udpHost: String
    public var udpPort: Int
    /// Host candidate addresses to announce; empty: the bound address (which must then be specific).
    public var candidateAddresses: [String] = []
    /// Optional bearer token POST/DELETE must present (RFC 9725 §4.5).
    public var bearerToken: String?
    /// Viewers at once. The engine always sets it from the config (`max_viewers`, whose default is
    /// Config's `OutputDefaults.whepMaxViewers`); this default is the same 8, for direct users
    /// (tests, the benches), so no path gets a different limit.
    public var maximumViewers = 8
    /// A connected viewer whose RTCP receiver reports stop advancing for this long while media is
    /// sent is stalled and closed (its player may POST again); `stall_timeout`, default 5 s.
    public var stallTimeoutSeconds = 5.0
    /// RFC 7675 §5.1: a viewer whose checks stop for this long is gone.
    public var consentTimeoutNanos: UInt64 = 30_000_000_000
    /// A viewer that does not finish ICE + DTLS within this long after its POST is dropped.
    public var connectTimeoutNanos: UInt64 = 20_000_000_000
    /// First DTLS retransmission timeout (RFC 6347: 1 s).
    public var dtlsInitialRetransmitMillis: UInt32 = 1000
    /// Frames of one rendition waiting for the event loop before new ones of it are dropped (and a
    /// key frame of it requested); each rendition has this many of its own.
    public var queueCapacity = 30
    /// Opus frames (20 ms each) waiting for the event loop before new ones are dropped.
    public var audioQueueCapacity = 50
    /// Bytes the shared socket may hold in the process once the kernel's send buffer is full (the
    /// link stalled); past it video frames are dropped until it drains to half (``SocketBacklogGate``).
    public var socketBacklogLimitBytes = 64 * 1024
    public var maxPayloadSize = 1200
    /// RTCP Sender Report interval per viewer.
    public var senderReportIntervalNanos: Int64 = 1_000_000_000
    /// Offer transport-wide congestion control (a send-side estimate per viewer from its
    /// transport-cc feedback); false leaves viewers' REMB as the only estimate.
    public var transportWideCC = true
    /// When a viewer moves between renditions (with several).
    public var renditionSwitching = RenditionSwitchPolicy.Settings()

    /// The per-viewer media sender's settings; its bandwidth estimate starts where the top
    /// rendition fits with room to spare and may grow to twice the top rendition. A viewer that
    /// asked for low latency gets its frames out of the pacer whole when it was idle
    /// (``lowLatencyPacerBurstNanos``) instead of in 5 ms steps.
    func mediaSender(topBitsPerSecond: Int, lowLatency: Bool = false) -> WebRTCMediaSender.Configuration {
        var configuration = WebRTCMediaSender.Configuration()
        if lowLatency { configuration.pacing?.idleBurstNanos = Self.lowLatencyPacerBurstNanos }
        configuration.maxPayloadSize = maxPayloadSize
        configuration.senderReportIntervalNanos = senderReportIntervalNanos
        configuration.receiverReportLedgerCapacity = Self.receiverReportLedgerCapacity
        configuration.bandwidthEstimation = .init(initialBitsPerSecond: Int(Double(topBitsPerSecond) * renditionSwitching.upFactor),
                                                  minimumBitsPerSecond: min(100_000, topBitsPerSecond), maximumBitsPerSecond: 2 * topBitsPerSecond)
        return configuration
    }

    /// Video packets a viewer's ``ReceiverReportLedger`` remembers: a browser reports about once
    /// a second on the packet it got last, and the packets sent follow the encode's bitrate, so
    /// 2 s of a 10 Mbit/s encode (8 s at 2.5 Mbit/s) is ample. A quarter of the default's table.
    static let receiverReportLedgerCapacity = 2048

    /// The pacer's idle burst for a low-latency viewer (libwebrtc's default burst interval): a
    /// 2.5 Mbit/s stream's delta frames, and at the pacing rate most key frames, leave at once.
    static let lowLatencyPacerBurstNanos: Int64 = 40_000_000

    /// NIO's writability thresholds for ``socketBacklogLimitBytes``.
    var socketBacklogWaterMark: ChannelOptions.Types.WriteBufferWaterMark {
        .init(low: socketBacklogLimitBytes / 2, high: socketBacklogLimitBytes)
    }

    public init(udpHost: String = "127.0.0.1", udpPort: Int = 0) {
        self.udpHost = udpHost
        self.udpPort = udpPort
    }
}
