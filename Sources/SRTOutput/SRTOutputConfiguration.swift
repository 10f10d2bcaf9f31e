import Codec
import Output

/// Everything an ``SRTStreamOutput`` needs, as plain values (the engine builds it from the config).
public struct SRTOutputConfiguration: Sendable {
    public enum Mode: Sendable, Equatable {
        /// Dial the receiver at `host:port`.
        case caller
        /// Wait on `port` (on `host`, or every interface when empty) for a receiver to dial in.
        case listener
    }

    public var host: String
    public var port: Int
    public var mode: Mode = .caller
    public var streamID: String?
    public var passphrase: String?
    public var keyLengthBytes: Int?
    public var latencyMilliseconds: Int?
    /// The audio track's codec in the transport stream: AAC (ADTS), what every receiver plays, or
    /// Opus (`audio_codec: opus`), which FFmpeg, GStreamer and VLC demux.
    public var audioCodec: AudioCodec = .aac
    /// Each frame's capture time in a SEI (`capture_time`, on by default: docs/capture-time.md).
    public var captureTime: CaptureTimeSignal = .sei
    /// Caller: how long a connect may take (libsrt's SRTO_CONNTIMEO).
    public var connectTimeoutSeconds = 3.0
    public var reconnect = ReconnectPolicy()
    /// Caller: how long after a loss of ours a stream ID refused as in use (SRT_REJX_CONFLICT, the
    /// receiver still holding our frozen session) is tried again every 250 ms instead of backing off
    /// (``Output/KeyInUseRetry``; YAML `in_use_retry`).
    public var keyInUseRetry = KeyInUseRetry.Settings()
    /// No SRT acknowledgement for this long, with media owed, is a stall: the connection is replaced
    /// (``Output/DeliveryHealth``; `stall_timeout`, default 5 s, the same as libsrt's peer-idle timeout).
    public var stallTimeoutSeconds = 5.0
    /// Frames (video and audio) waiting for the output's thread; beyond this they are dropped and counted.
    public var queueCapacity = 90
    /// With adaptive bitrate: the send buffer (unacknowledged media) against the latency window
    /// drives the controller, whose decisions cap the camera's shared encoder (Pipeline's `BitrateArbiter`).
    public var adaptiveBitrate: AdaptiveBitrateController.Settings?
    /// Shown in logs and status with secrets masked.
    public var maskedTarget: String
    /// Caller: backup ingests, in order (YAML `backup:` with `backup_mode: failover`): on a stall or
    /// error the stream moves to the next one at once, and back to ``host`` once it has been
    /// reachable for a while (``IngestFailover``).
    public var backups: [Ingest] = []
    /// How often the primary is probed while on a backup, and how long it must stay reachable.
    public var failover = IngestFailover.Settings()

    /// A backup ingest: another receiver, with its own stream ID and passphrase where it has them.
    public struct Ingest: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var streamID: String?
        public var passphrase: String?
        /// Shown in logs and status with secrets masked.
        public var maskedTarget: String

        public init(host: String, port: Int, streamID: String?, passphrase: String?, maskedTarget: String) {
            self.host = host
            self.port = port
            self.streamID = streamID
            self.passphrase = passphrase
            self.maskedTarget = maskedTarget
        }
    }

    /// What connections to ingest `index` are made with: this configuration (0, the primary), or
    /// this one at the backup's address with its stream ID and passphrase.
    public func ingest(_ index: Int) -> SRTOutputConfiguration {
        guard backups.indices.contains(index - 1) else { return self }
        let backup = backups[index - 1]
        var configuration = self
        (configuration.host, configuration.port, configuration.maskedTarget) = (backup.host, backup.port, backup.maskedTarget)
        (configuration.streamID, configuration.passphrase) = (backup.streamID, backup.passphrase)
        return configuration
    }

    public init(host: String, port: Int, maskedTarget: String) {
        self.host = host
        self.port = port
        self.maskedTarget = maskedTarget
    }

    /// MPEG-TS packets per SRT packet: 7 × 188 = 1316 bytes, the payload every SRT receiver expects.
    public static let transportPacketsPerPayload = 7
    public static let payloadBytes = transportPacketsPerPayload * 188
    /// libsrt's latency window when none is configured.
    public static let defaultLatencyMilliseconds = 120

    /// Adaptive bitrate for a link whose buffer is bounded by the latency window: congested when
    /// unacknowledged media fills half of it (packets are about to be dropped as too late), clear
    /// below a fifth.
    public static func adaptiveBitrate(targetBitsPerSecond: Int, latencyMilliseconds: Int?) -> AdaptiveBitrateController.Settings {
        let latency = Int64(latencyMilliseconds ?? defaultLatencyMilliseconds)
        var settings = AdaptiveBitrateController.Settings(targetBitsPerSecond: targetBitsPerSecond)
        settings.congestedQueueMilliseconds = latency / 2
        settings.clearQueueMilliseconds = latency / 5
        return settings
    }
}
