import Codec
import Output

/// One destination of a camera's encode, as the config names it.
///
/// Every kind is parsed and validated here; whether this build can run it is decided when the
/// server builds the outputs (``OutputConfig/Kind``), so `check-config` works everywhere.
public struct OutputConfig: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case record, rtmp, rtp, whep, whip, srt
    }

    public enum Settings: Sendable, Equatable {
        /// A fragmented MP4 recording; `segmentSeconds` starts a new file, `retentionSeconds`
        /// deletes finished segments older than that.
        case record(path: String, segmentSeconds: Double?, retentionSeconds: Double?)
        /// An RTMP(S) publish: `url` is the application URL, `streamKey` the secret stream name.
        case rtmp(url: String, streamKey: Secret?, preset: StreamingPreset?)
        /// RTP (SRTP when a key is given) to `host:port`; the key `generate` makes a fresh one per
        /// start (it is then in the SDP).
        case rtp(host: String, port: Int, payloadType: Int, srtpKey: Secret?)
        /// The built-in WHEP viewer endpoint (browsers play the camera at `/whep/{camera}`).
        case whep(maxViewers: Int)
        /// A WHIP publish to a WebRTC server (MediaMTX, Janus, a CDN).
        case whip(url: String, token: Secret?)
        /// MPEG-TS over SRT, as caller (the default) or listener.
        case srt(SRTSettings)
    }

    /// Unique within its camera: `record`, `rtmp`, `rtmp-2`, or the `id` the config gives.
    public var id: String
    public var settings: Settings
    /// For rtmps:// and https:// WHIP: a PEM file of CA certificates trusted besides the system store.
    public var caFile: String?
    /// For rtmp, srt and whep: the link (RTMP and SRT adaptive bitrate) or the viewers (REMB) may hold the camera's
    /// shared encoder below its bitrate. Off by default (``OutputDefaults/adaptiveBitrate``): one slow
    /// destination would lower the quality every other destination of the camera gets.
    public var adaptiveBitrate: Bool
    /// For rtmp, srt and whip: timeouts, reconnect backoff and (rtmp) the send queue.
    public var connection: ConnectionConfig
    /// For rtp: a file to write the stream's SDP to once the first frame is out (for ffplay, VLC).
    public var sdpFile: String?
    /// For whep: the viewers' UDP port, token and lowest adaptive bitrate.
    public var viewers: WHEPViewerConfig
    /// The camera's rendition this output takes (`rendition: sd`); nil: the first.
    public var rendition: String?
    /// For rtmp: the camera's renditions sent as the video tracks of one enhanced-RTMP v2 connection
    /// (`renditions: [hd, sd, ld]`), top first as track 0; a server that does not announce multitrack
    /// gets the first alone. Empty: the one ``rendition`` as an ordinary stream.
    public var tracks: [String]
    /// `start: false` keeps the output configured but stopped when its camera starts, until someone
    /// starts it through the API or the dashboard (the event's YouTube push, a recording when wanted).
    public var startsWithCamera: Bool
    /// For rtmp, srt and rtp: how each frame's capture time reaches the receiver (`capture_time`,
    /// ``OutputDefaults/captureTime(_:)``; docs/capture-time.md).
    public var captureTime: CaptureTimeSignal
    /// rtmp, srt: each `backup:` ingest as the settings of an output to it (an RTMP backup with the
    /// output's key unless its URL names its own, an SRT backup with the output's settings but its own
    /// address); ``publishedIngests`` makes them outputs in `backup_mode: both`.
    public var backupIngests: [Settings] = []
    /// `backup_mode: both`: which ingest of the configured output this one publishes to (0 the
    /// primary, 1… the backups in order); nil for every other output.
    public var ingest: Int?

    public init(id: String, settings: Settings, caFile: String? = nil, adaptiveBitrate: Bool = OutputDefaults.adaptiveBitrate,
                connection: ConnectionConfig = ConnectionConfig(), sdpFile: String? = nil, viewers: WHEPViewerConfig = WHEPViewerConfig(),
                rendition: String? = nil, tracks: [String] = [], startsWithCamera: Bool = OutputDefaults.startsWithCamera, captureTime: CaptureTimeSignal? = nil) {
        self.id = id
        self.settings = settings
        self.caFile = caFile
        self.adaptiveBitrate = adaptiveBitrate
        self.connection = connection
        self.sdpFile = sdpFile
        self.viewers = viewers
        self.rendition = rendition
        self.tracks = tracks
        self.startsWithCamera = startsWithCamera
        self.captureTime = captureTime ?? .none
        if captureTime == nil { self.captureTime = OutputDefaults.captureTime(kind) }
    }

    public var kind: Kind {
        switch settings {
        case .record: return .record
        case .rtmp: return .rtmp
        case .rtp: return .rtp
        case .whep: return .whep
        case .whip: return .whip
        case .srt: return .srt
        }
    }

    /// Where it goes, safe for logs and the API (stream keys and tokens masked).
    public var maskedTarget: String {
        switch settings {
        case let .record(path, _, _): return path
        case let .rtmp(url, key, _): return key == nil ? URLRedaction.maskStreamName(url) : URLRedaction.mask("\(url)/***")
        case let .rtp(host, port, _, key): return "\(key == nil ? "rtp" : "srtp")://\(host):\(port)"
        case .whep: return "/whep/{camera}"
        case let .whip(url, _): return URLRedaction.mask(url)
        case let .srt(settings): return settings.maskedURL
        }
    }
}

extension OutputConfig {
    /// The outputs this configured one runs as: itself, or with `backup_mode: both` one output per
    /// ingest — itself to the primary, then `ID-backup-1`, `ID-backup-2`… — each a full output with its
    /// own queue, health, reconnect and status, fed by the same encode.
    public var publishedIngests: [OutputConfig] {
        guard connection.backupMode == .both, !backupIngests.isEmpty else { return [self] }
        var primary = self
        primary.connection.backupURLs = []
        primary.backupIngests = []
        primary.ingest = 0
        return [primary] + backupIngests.enumerated().map { offset, settings in
            var backup = primary
            backup.id = Self.backupID(id, index: offset + 1)
            backup.settings = settings
            backup.ingest = offset + 1
            return backup
        }
    }

    /// `yt-backup-1`: the id of backup ingest `index` of output `id` in `backup_mode: both`.
    public static func backupID(_ id: String, index: Int) -> String { "\(id)-backup-\(index)" }
}
