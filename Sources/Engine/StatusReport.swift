import Output

/// `GET /api/status`: the whole process, every camera and every output (JSON, camelCase keys;
/// described in web/openapi.yaml). Values a stage cannot measure yet are null, not zero.
public struct StatusReport: Codable, Sendable, Equatable {
    public var uptimeSeconds: Double
    public var process: ProcessReport
    public var cameras: [CameraReport]
}

public struct ProcessReport: Codable, Sendable, Equatable {
    /// CPU time used since start (user + system).
    public var cpuSeconds: Double
    /// CPU use over the last sampling interval, 100 = one core.
    public var cpuPercent: Double
    public var residentBytes: Int
}

public struct CameraReport: Codable, Sendable, Equatable {
    public var id: String
    public var source: String
    /// running, no-signal, idle (an on-demand camera nobody watches: see ``stateReason``), stopped or failed.
    public var state: String
    public var width: Int
    public var height: Int
    /// The encoder that runs (what `auto` picked, when it was asked for).
    public var encoder: String
    /// With `encoder: auto`: what was picked and why ("h264_v4l2m2m: /dev/video11 encoded a test frame").
    public var encoderChoice: String?
    /// Times the watchdog reopened a wedged hardware encoder (no frame out for seconds while frames went in).
    public var encoderRestarts: Int = 0
    public var captureFps: Double
    public var encodedFps: Double
    public var bitrateBitsPerSecond: Double
    public var targetBitrateBitsPerSecond: Int
    /// What the encoder is set to now: the target, or less while an output with adaptive bitrate
    /// (RTMP on a slow link, WHEP viewers' REMB) holds it down.
    public var encoderBitrateBitsPerSecond: Int
    /// The lowest the encoder was set to since it started, and how many times it changed.
    public var lowestEncoderBitrateBitsPerSecond: Int
    public var encoderBitrateChanges: Int
    public var framesEncoded: Int
    public var keyFrames: Int
    public var droppedFrames: DroppedFrames
    /// Frames waiting for the encoder.
    public var queueDepth: Int
    public var uptimeSeconds: Double
    public var lastError: String?
    public var outputs: [OutputReport]
    /// CPU-overload adaptation (`adapt: {cpu: true}`): where the encode is on its ladder; null when off.
    public var adaptation: AdaptationReport? = nil
    /// Why the camera is in its state, where that is not obvious ("on demand, no viewer" while idle).
    public var stateReason: String? = nil
    /// With `on_demand: true`: how often capture started and stopped; null for always-on cameras.
    public var onDemand: OnDemandReport? = nil
    /// The audio track the camera's outputs carry (its microphone, or a silent track); null without one.
    public var audio: AudioReport? = nil
    /// Each encode of the camera, top first (one, named `main`, for a camera without `renditions:`).
    public var renditions: [RenditionReport] = []
}

/// Where CPU-overload adaptation has a camera's encode, and how it got there.
public struct AdaptationReport: Codable, Sendable, Equatable {
    /// The operating point now, `1280x720@60`.
    public var rung: String
    public var width: Int
    public var height: Int
    public var framesPerSecond: Int
    /// 0 is the configured operating point; `rungCount - 1` the floor (min_size, min_fps).
    public var rungIndex: Int
    public var rungCount: Int
    public var stepsDown: Int
    public var stepsUp: Int
    /// The last step's log line, null before any.
    public var lastReason: String?
    /// Frames skipped to hold a lowered frame rate (not drops).
    public var thinnedFrames: Int
}

/// An on-demand camera's starts (a viewer, an output or a snapshot came) and stops (the idle grace passed).
public struct OnDemandReport: Codable, Sendable, Equatable {
    public var starts: Int
    public var stops: Int
}

/// A camera's audio track: its source and whether it captures now. An on-demand camera's
/// microphone pauses while the camera idles (the device closed), so the counts stand still then.
public struct AudioReport: Codable, Sendable, Equatable {
    /// The configured source: an ALSA device, `tone` or `silence`.
    public var device: String
    /// capturing, paused (an on-demand camera idles), or stopped (see lastError).
    public var state: String
    /// 10 ms chunks read from the source.
    public var chunksCaptured: Int
    /// Encoded audio frames handed to the outputs (AAC and Opus together).
    public var framesEncoded: Int
    /// Audio timestamps minus the video's capture clock, ms (negative: audio lags): what is left
    /// after correction, or the whole skew with `clock_correction: off`.
    public var clockSkewMillis: Double = 0
    /// The audio device's sample clock against the capture clock, ppm (negative: it runs slow).
    public var clockDriftPPM: Double = 0
    /// Sample frames inserted (positive) or dropped per million now to correct it.
    public var clockCorrectionPPM: Double = 0
    public var lastError: String?
}

/// One rendition of a camera: its encode and the outputs that take it.
public struct RenditionReport: Codable, Sendable, Equatable {
    public var name: String
    public var width: Int
    public var height: Int
    /// The configured rate (captured frames are thinned to it).
    public var fps: Double
    public var encoder: String
    public var targetBitrateBitsPerSecond: Int
    /// What its encoder is set to now: the target, or less while an adapting output holds it down.
    public var encoderBitrateBitsPerSecond: Int
    /// How many times adapting outputs changed this rendition's encoder bitrate: 0 shows that WHEP
    /// viewers moving between renditions left the shared encodes alone.
    public var encoderBitrateChanges: Int = 0
    public var encodedFps: Double
    public var bitrateBitsPerSecond: Double
    public var framesEncoded: Int
    public var keyFrames: Int
    /// Frames its encoder queue dropped because the encoder was behind (this rendition's alone).
    public var droppedFrames: Int
    /// Captured frames left out to bring the capture rate down to the rendition's.
    public var framesThinned: Int
    /// Frames waiting for its encoder.
    public var queueDepth: Int
    /// Ids of the outputs that take it.
    public var outputs: [String]
    /// Where CPU-overload adaptation has this rendition's encode; null when off.
    public var adaptation: AdaptationReport? = nil
    /// Frames its encoder took as the captured buffer itself (no copy: a rendition at capture size).
    public var framesAsCaptured = 0
    /// Frames its encoder scaled (for itself, and for a sibling rendition of the same size).
    public var framesScaled = 0
    /// Frames it took already scaled by a sibling rendition of the same size (scaled once for both).
    public var framesScaledBySibling = 0
}

/// Frames lost, by where.
public struct DroppedFrames: Codable, Sendable, Equatable {
    public var capture: Int
    public var encoder: Int
    public var outputs: Int
}

public struct OutputReport: Codable, Sendable, Equatable {
    public var id: String
    public var kind: String
    /// Destination with secrets masked.
    public var target: String
    public var state: String
    public var fps: Double
    public var bitrateBitsPerSecond: Double
    public var framesSent: Int
    public var droppedFrames: Int
    /// The part of ``droppedFrames`` lost because the output's socket backlog was past its limit.
    public var droppedFramesAtSocket: Int
    /// Delta frames held back after a loss until the next key frame (never sent undecodable).
    public var framesHeldForKeyFrame: Int
    public var bytesSent: Int64
    public var queueDepth: Int?
    public var reconnects: Int
    public var rttMilliseconds: Double?
    public var uptimeSeconds: Double?
    public var lastError: String?
    /// healthy, degraded, stalled, reconnecting or failed, from the receiver's own acknowledgements
    /// (docs/delivery-health.md); null for kinds without that evidence yet.
    public var health: String? = nil
    /// Time per health state, reconnects by cause, bytes sent and acknowledged, drops by reason and
    /// the longest gap between acknowledgements; null where `health` is.
    public var delivery: DeliveryReport? = nil
    /// SRT outputs: libsrt's view of the link (RTT, send buffer, loss, retransmits, ACKs).
    public var srt: SRTLinkStatistics? = nil
    /// The camera's rendition it takes; null for an output that serves every rendition (WHEP viewers).
    public var rendition: String? = nil
    /// WHEP outputs: each viewer's bandwidth estimate, rendition and switches, by session id.
    public var viewerLinks: [String: WebRTCViewerLink]? = nil
    /// WHEP outputs: the glass-to-glass latency the viewers' pages measured and reported (with their
    /// consent: docs/capture-time.md); null while no viewer reports.
    public var viewerLatency: ViewerLatencySummary? = nil
    /// Why a stopped output is stopped (configured `start: false`, or stopped through the API), or
    /// why a reconnecting one retries as it does (an RTMP key the server still holds: "key in use …,
    /// retrying every 250 ms"); null otherwise.
    public var stateReason: String? = nil
    /// Recordings: the files written so far, in order (segments, and a new file at each picture-size
    /// change); null for other kinds.
    public var files: [String]? = nil
    /// RTMP outputs: the server's latest ReconnectRequest (honoured, refused or failed, when, where
    /// to); null until a server asks.
    public var reconnectRequest: ReconnectRequestReport? = nil
    /// RTMP outputs with `backup:` ingests: which one is live (0 the primary), its URL (key masked),
    /// since when and why it moved; null without backups.
    public var ingest: IngestReport? = nil
}
