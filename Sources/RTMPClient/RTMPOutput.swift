import Codec
import Logging
import MediaCore
import NIOCore
import NIOPosix
import Output
import RTMP
import Synchronization

/// One RTMP destination of the stream (`StreamOutput`): connects, publishes, and keeps publishing —
/// reconnecting with backoff, dropping by GOP when the link is slow, adapting the bitrate if asked.
///
/// Threads: `onEncodedFrame` runs on the encoder thread and only pushes into the `RTMPSendQueue` under a
/// mutex, then wakes the event loop (at most one wake-up outstanding). Everything else — the connection,
/// the packetizer, the media clock, writing — happens on this output's own event loop, so a slow or dead
/// server never blocks the encoder or the other outputs.
public final class RTMPOutput: StreamOutput, @unchecked Sendable {
    // @unchecked: `shared` is a Mutex; every other `var` is touched only on `eventLoop` (see RTMPOutput+Session).

    struct Shared: Sendable {
        var queue: RTMPSendQueue
        var status = OutputStatus(state: .starting)
        var latency = SendLatencyRecorder()
        var drainScheduled = false
        var bitrateBitsPerSecond: Int
        var requestKeyFrame: @Sendable () -> Void = {}
        /// Keyframes asked of the encoder because frames were dropped.
        var keyFrameRequests = 0
        /// Whether the server takes the stream, from its Acknowledgements (updated by `checkLink`).
        var health: DeliveryHealth
        /// How many of the configured tracks are queued (track 0 up to it): all of them until a
        /// server's `connect` result says it takes no multitrack, then the top one alone.
        var tracksQueued: Int
        /// The top tracks paused while the link cannot carry every track.
        var trackPause: RTMPTrackPause
    }

    enum Role { case active, pending }

    public let configuration: RTMPOutputConfiguration
    let eventLoop: EventLoop
    let connector: RTMPConnector
    let logger: Logger
    let shared: Mutex<Shared>

    typealias Lifecycle = ConnectionLifecycle<RTMPClientError, SystemRandomNumberGenerator>

    // Event-loop state.
    var url: RTMPURL
    /// Connect, publish, reconnect with backoff, move on request, stop: decided here, done in RTMPOutput+Session.
    var lifecycle: Lifecycle
    /// Whether a refused key is our own lost session, still held by the server: retried soon if so.
    var keyInUse: KeyInUseRetry
    var session: RTMPSessionHandler?
    /// A connection opened for `NetConnection.Connect.ReconnectRequest`; takes over at the next keyframe.
    var pending: RTMPSessionHandler?
    /// Where `pending` connects; becomes `url` only once it has taken over.
    var pendingURL: RTMPURL?
    /// The connection being opened, and which one it will be.
    var connecting: Role?
    /// One per video track being sent, track 0 first (one alone for a single stream, or a server
    /// without multitrack); track 0's also writes the audio and onMetaData. Empty while not publishing.
    var packetizers: [FLVStreamPacketizer] = []
    /// Set with `capture_time: sei`: each frame is stamped just before the packetizer takes it.
    var captureTimeStamper: CaptureTimeStamper?
    var clock: RTMPMediaClock
    /// The parameter sets of each track's last sequence header; nil until its first keyframe on
    /// this connection (its frames wait for it).
    var sentParameterSets: [ParameterSets?] = []
    /// Frames dropped by GOP so far, as the multitrack sender last saw it (``RTMPOutput/drain(untilEmpty:)``).
    var referenceDropsSeen = 0
    /// How many top tracks were paused at the last check (RTMPOutput+Tracks).
    var reportedPausedTracks = 0
    var audioSequenceHeader: FLVAudioPacket?
    /// What onMetaData announces: the configured video plus the audio track once described.
    var stream: RTMPStreamDescription
    var reconnectTimer: Scheduled<Void>?
    /// Which ingest (primary or backup) carries the stream (RTMPOutput+Failover).
    var failover: IngestFailover
    /// Probes the primary while a backup is live; `probing` while one is out.
    var probeTask: RepeatedTask?
    var probing = false
    var monitor: RepeatedTask?
    /// Drops and keyframe requests already logged (`reportDrops`).
    var reportedDrops = RTMPSendQueue.Drops()
    var reportedKeyFrameRequests = 0
    var stopPromise: EventLoopPromise<Void>?
    var bitrateController: AdaptiveBitrateController?
    /// Caps the shared encoder (``OutputStartContext/limitBitrate``) when adaptive bitrate is
    /// configured; nil lifts the cap.
    var limitBitrate: @Sendable (Int?) -> Void = { _ in }

    public init(configuration: RTMPOutputConfiguration, group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                logger: Logger = Logger(label: "livepush.rtmp")) {
        self.configuration = configuration
        eventLoop = group.next()
        url = configuration.url
        lifecycle = Lifecycle(policy: configuration.reconnect, random: SystemRandomNumberGenerator())
        keyInUse = KeyInUseRetry(settings: configuration.keyInUseRetry)
        failover = IngestFailover(backups: configuration.backups.count, settings: configuration.failover, nowNanos: MonotonicClock.nowNanos())
        stream = configuration.stream
        clock = RTMPMediaClock(videoTracks: configuration.tracks.count)
        var logger = logger
        logger[metadataKey: "output"] = "\(configuration.url.redacted)"
        self.logger = logger
        connector = RTMPConnector(
            group: group,
            settings: .init(
                connectTimeoutSeconds: configuration.connectTimeoutSeconds,
                timeouts: .init(handshakeSeconds: configuration.handshakeTimeoutSeconds,
                                transactionSeconds: configuration.transactionTimeoutSeconds),
                caCertificatesPath: configuration.caCertificatesPath,
                backlogBytes: RTMPConnector.Settings.backlogBytes(bitsPerSecond: configuration.stream.videoBitrateBitsPerSecond)),
            logger: logger)
        shared = Mutex(Shared(queue: RTMPSendQueue(limits: .init(milliseconds: configuration.queueMilliseconds)),
                              bitrateBitsPerSecond: configuration.stream.videoBitrateBitsPerSecond,
                              health: DeliveryHealth(settings: .init(stallTimeoutSeconds: configuration.stallSeconds),
                                                     evidence: Self.acknowledgementEvidence),
                              tracksQueued: max(1, configuration.tracks.count), trackPause: RTMPTrackPause(tracks: configuration.tracks.count)))
        bitrateController = configuration.adaptiveBitrate.map(AdaptiveBitrateController.init)
        if configuration.captureTime == .sei { captureTimeStamper = CaptureTimeStamper() }
    }

    public var name: String { "rtmp:\(configuration.url.redacted)" }

    /// Begins connecting in the background and returns at once: a dead server must not delay the others.
    /// With adaptive bitrate configured, its decisions cap the shared encoder through the context;
    /// back at the target (or stopped) this output lifts its cap. The AAC track, if any, is announced
    /// on every connection (``describeAudio(_:)``).
    /// A multitrack output asks every track's encoder for its keyframes, so the tracks' keyframes stay
    /// on the same capture times.
    public func start(_ context: OutputStartContext) async throws {
        _ = try FLVStreamPacketizer(description: configuration.stream, messageStreamID: 1)
        let requestKeyFrame = Self.keyFrameRequest(tracks: configuration.tracks, context: context)
        shared.withLock { $0.requestKeyFrame = requestKeyFrame }
        let adapts = configuration.adaptiveBitrate != nil
        try await eventLoop.submit {
            if adapts { self.limitBitrate = context.limitBitrate }
            if let track = context.audioTrack { self.describeAudio(track) }
            self.begin()
        }.get()
    }

    /// Sends what is queued (bounded in time), says goodbye (FCUnpublish, deleteStream) and closes.
    public func stop() async {
        let promise = eventLoop.makePromise(of: Void.self)
        eventLoop.execute { self.finish(promise) }
        try? await promise.futureResult.get()
        try? await eventLoop.submit { self.limitBitrate(nil) }.get()
    }

    public func onEncodedFrame(_ frame: EncodedVideoFrame) {
        guard let track = trackIndex(of: frame) else { return }
        enqueue(.video(frame, VideoFrameImportance(frame)), track: track)
    }

    /// With ``RTMPOutputConfiguration/tracks``, the output takes every rendition of its camera and
    /// sends those its tracks name.
    public var servesAllRenditions: Bool { !configuration.tracks.isEmpty }

    /// Audio in FLV form (AAC sequence header or raw frame), capture time on CLOCK_MONOTONIC.
    public func onAudio(_ packet: FLVAudioPacket, timestampNanos: Int64) {
        enqueue(.audio(timestampNanos: timestampNanos, packet: packet))
    }

    /// RTMP carries AAC (FLV SoundFormat 10).
    public var audioCodec: AudioCodec? { .aac }

    /// Announces the AAC track: metadata fields and the sequence header (resent on every reconnect).
    /// On the event loop.
    private func describeAudio(_ track: AudioTrack) {
        guard let config = track.audioSpecificConfig else { return }
        stream.audio = .init(sampleRate: track.format.sampleRate, channels: track.format.channels,
                             bitrateBitsPerSecond: AudioEncoderSettings(codec: .aac, format: track.format).bitrateBitsPerSecond)
        audioSequenceHeader = .aacSequenceHeader(ByteBuffer(bytes: config))
    }

    public func onEncodedAudio(_ frame: EncodedAudioFrame) {
        enqueue(.aacFrame(frame))
    }

    public func onEncoderError(_ error: CodecError) {
        logger.error("encoder failed; nothing more to send", metadata: ["error": "\(error)"])
    }

    public var status: OutputStatus {
        let now = MonotonicClock.nowNanos()
        return shared.withLock { shared in
            var status = shared.status
            status.framesDropped = shared.queue.drops.video
            // A stopped output has no receiver to judge; its report stays.
            status.health = shared.status.state == .stopped ? nil : shared.health.state
            var delivery = shared.health.report(at: now)
            let drops = shared.queue.drops
            delivery.framesDropped = ["non-reference": drops.nonReference, "by GOP": drops.reference + drops.key, "audio": drops.audio]
            status.delivery = delivery
            return status
        }
    }

    /// Capture → last byte handed to the socket, for sent video frames: (p50, p99) in nanoseconds.
    public var sendLatencyNanos: (p50: Int64, p99: Int64)? {
        shared.withLock { shared in
            guard let p50 = shared.latency.quantileNanos(0.5), let p99 = shared.latency.quantileNanos(0.99) else { return nil }
            return (p50, p99)
        }
    }

    /// Dropped frames by kind, for the summary.
    public var drops: RTMPSendQueue.Drops { shared.withLock { $0.queue.drops } }

    /// Asks the shared encoder for an IDR (after drops, on a new connection).
    func requestKeyFrame() {
        shared.withLock { $0.requestKeyFrame }()
    }

    /// `track`: the video track `item` belongs to (nil for audio); a track the server does not take, or
    /// one paused while the link cannot carry every track (``RTMPTrackPause``), is not queued.
    private func enqueue(_ item: RTMPMediaItem, track: Int? = nil) {
        let (keyFrameRequest, wake) = shared.withLock { shared -> ((@Sendable () -> Void)?, Bool) in
            // A server without multitrack takes track 0 alone, paused or not.
            if let track, track >= shared.tracksQueued || (shared.tracksQueued > 1 && !shared.trackPause.carries(track: track)) { return (nil, false) }
            let gopDrops = shared.queue.drops.reference + shared.queue.drops.key
            shared.queue.push(item)
            if shared.tracksQueued > 1, shared.status.state == .running, shared.queue.drops.reference + shared.queue.drops.key > gopDrops {
                _ = shared.trackPause.gopsDropped(nowNanos: MonotonicClock.nowNanos())
            }
            let wake = !shared.drainScheduled
            shared.drainScheduled = true
            guard shared.queue.takeKeyFrameRequest() else { return (nil, wake) }
            shared.keyFrameRequests += 1
            return (shared.requestKeyFrame, wake)
        }
        keyFrameRequest?()
        if wake { eventLoop.execute { self.drain() } }
    }
}
