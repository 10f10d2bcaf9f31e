import Codec
import Output
import RTMP

/// Everything one RTMP destination needs; the defaults suit a headless broadcaster on a flaky uplink.
public struct RTMPOutputConfiguration: Sendable {
    public var url: RTMPURL
    public var stream: RTMPStreamDescription
    /// Media the send queue may hold before whole GOP tails are dropped (non-reference frames go at half).
    public var queueMilliseconds = 2000
    public var connectTimeoutSeconds = 10.0
    public var handshakeTimeoutSeconds = 10.0
    /// How long to wait for each command's answer (connect, createStream, publish).
    public var transactionTimeoutSeconds = 10.0
    /// A connection whose server acknowledged nothing for this long while media was owed is stalled:
    /// it is closed and replaced (``DeliveryHealth``; YAML `stall_timeout`).
    public var stallSeconds = 5.0
    public var reconnect = ReconnectPolicy()
    /// After a loss of ours, how soon and for how long a key the server still holds ("already
    /// publishing") is tried again instead of backing off (``KeyInUseRetry``; YAML `in_use_retry`).
    public var keyInUseRetry = KeyInUseRetry.Settings()
    /// Where an enhanced-RTMP ReconnectRequest may move the stream key (YAML `follow_redirects`):
    /// the configured host only by default; never from rtmps:// to rtmp://.
    public var followRedirects = RedirectPolicy.sameHost
    /// Extra PEM CA certificates for rtmps:// (e.g. a private ingest's own CA).
    public var caCertificatesPath: String?
    /// Lowers and restores the encoder's bitrate from the queue and TCP_INFO; nil leaves the bitrate alone.
    public var adaptiveBitrate: AdaptiveBitrateController.Settings?
    /// Each frame's capture time in a SEI (`capture_time: sei`, docs/capture-time.md). Off by default:
    /// a platform's ingest decides what reaches viewers (docs/capture-time.md says why).
    public var captureTime: CaptureTimeSignal = .none
    /// Backup ingests, in order (YAML `backup:`): on a stall or error the stream moves to the next one
    /// at once, and back to ``url`` once it has been reachable for a while (``IngestFailover``).
    public var backups: [RTMPURL] = []
    /// How often the primary is probed while on a backup, and how long it must stay reachable.
    public var failover = IngestFailover.Settings()

    /// Several renditions as the video tracks of one enhanced-RTMP v2 connection, track 0 (the top)
    /// first (YAML `renditions: [hd, sd, ld]`); ``stream`` then describes track 0, the one a server that
    /// does not announce multitrack gets alone. Empty: one stream of every frame the output is given.
    public var tracks: [RTMPTrack] = []
    /// Whether tracks go as multitrack only to a server that announces it in its `connect` result
    /// (the default, and the only sensible setting outside tests), or to any server. `.always` is
    /// test-only: FFmpeg's RTMP listener, the reader the tests check against, never announces `capsEx`.
    public var multitrack = RTMPMultitrackPolicy.whenAnnounced

    /// The primary, then the backups: the ingests ``IngestFailover`` indexes.
    public var ingests: [RTMPURL] { [url] + backups }

    public init(url: RTMPURL, stream: RTMPStreamDescription) {
        self.url = url
        self.stream = stream
    }
}

/// One video track of a multitrack RTMP connection: which of the camera's renditions it carries
/// (``Codec/EncodedVideoFrame/rendition``), and what its encoder makes.
public struct RTMPTrack: Sendable, Hashable {
    public var rendition: Int
    public var stream: RTMPStreamDescription

    public init(rendition: Int, stream: RTMPStreamDescription) {
        self.rendition = rendition
        self.stream = stream
    }
}

/// When an RTMP output with ``RTMPOutputConfiguration/tracks`` sends them as multitrack.
public enum RTMPMultitrackPolicy: Sendable, Hashable {
    /// Only when the server's `connect` result announces multitrack in `capsEx`; otherwise track 0
    /// goes alone as an ordinary stream (nginx-rtmp drops enhanced tags it cannot parse, without a word).
    case whenAnnounced
    /// Whatever the server announces: for tests against a reader that takes multitrack but never says so.
    case always
}
