import Pipeline

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
    /// running, no-signal, stopped or failed.
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
    /// WHEP outputs: each viewer's bandwidth estimate, rendition and switches, by session id.
    public var viewerLinks: [String: WebRTCViewerLink]? = nil
}
