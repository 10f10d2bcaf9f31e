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
