import Codec
import Logging
import MediaCore
import Output
import Synchronization

/// MPEG-TS over SRT (libsrt), as caller or listener: H.264/HEVC with AAC, 1316-byte payloads.
///
/// Threading: the encoder and audio threads only enqueue (``onEncodedFrame(_:)`` never blocks);
/// one thread of the output's own (a ``BoundedWorker``) muxes and calls libsrt, which may block.
/// At most ``SRTOutputConfiguration/queueCapacity`` frames wait; beyond that they are dropped,
/// counted, and delta frames are held back until a keyframe (asked for once per gap).
/// A lost connection is redialled with ``ReconnectPolicy``'s backoff (caller) or waits for the
/// receiver to dial in again (listener); each connection starts on a keyframe with parameter sets
/// and the TS timestamps continue the output's timeline.
public final class SRTStreamOutput: StreamOutput {
    enum Item: Sendable {
        case video(EncodedVideoFrame)
        case audio(EncodedAudioFrame)
    }

    public let configuration: SRTOutputConfiguration
    private let logger: Logger
    private let running = Mutex<(worker: BoundedWorker<Item>, sender: SRTSender, requestKeyFrame: @Sendable () -> Void)?>(nil)
    private let keyFrameGate = KeyFrameGate()
    private let droppedAtQueue = Atomic<Int>(0)
    private let finalStatus = Mutex<OutputStatus?>(nil)

    public init(configuration: SRTOutputConfiguration, logger: Logger = Logger(label: "livepush.srt")) {
        self.configuration = configuration
        self.logger = logger
    }

    public var name: String { configuration.maskedTarget }

    public var audioCodec: AudioCodec? { configuration.audioCodec }

    /// Muxes the context's audio track, if any; with adaptive bitrate configured, the send buffer
    /// against the latency window caps the shared encoder through the context.
    public func start(_ context: OutputStartContext) async throws {
        let requestKeyFrame = context.requestKeyFrame
        let sender = SRTSender(configuration: configuration, audio: context.audioTrack, logger: logger, requestKeyFrame: requestKeyFrame,
                               limitBitrate: configuration.adaptiveBitrate == nil ? nil : context.limitBitrate)
        try sender.prepare()
        let worker = BoundedWorker<Item>(name: ThreadName("srt"), capacity: configuration.queueCapacity,
                                         handle: { sender.handle($0) }, finish: { sender.close() })
        running.withLock { $0 = (worker, sender, requestKeyFrame) }
        requestKeyFrame()
    }

    public func onEncodedFrame(_ frame: EncodedVideoFrame) {
        guard let (worker, _, requestKeyFrame) = running.withLock({ $0 }), keyFrameGate.admits(frame) else { return }
        guard worker.submit(.video(frame)) else {
            droppedAtQueue.wrappingAdd(1, ordering: .relaxed)
            if keyFrameGate.frameLost() { requestKeyFrame() }
            return
        }
    }

    public func onEncodedAudio(_ frame: EncodedAudioFrame) {
        guard let (worker, _, _) = running.withLock({ $0 }) else { return }
        worker.submit(.audio(frame))
    }

    public func onEncoderError(_ error: CodecError) {
        logger.error("encoder stopped; SRT output ends", metadata: ["output": "\(name)", "error": "\(error)"])
    }

    /// Sends what is queued (dialling no more), lets the receiver acknowledge it, closes the connection and the port.
    public func stop() async {
        guard let (worker, sender, _) = running.withLock({ value in defer { value = nil }; return value }) else { return }
        sender.stopping.store(true, ordering: .relaxed)
        worker.finish()
        finalStatus.withLock { $0 = Self.status(of: sender, droppedAtQueue: droppedAtQueue.load(ordering: .relaxed), held: keyFrameGate.framesHeldBack) }
    }

    public var status: OutputStatus {
        if let sender = running.withLock({ $0?.sender }) {
            return Self.status(of: sender, droppedAtQueue: droppedAtQueue.load(ordering: .relaxed), held: keyFrameGate.framesHeldBack)
        }
        return finalStatus.withLock { $0 } ?? OutputStatus(state: .stopped)
    }

    /// The link statistics as a plain value (also in ``status``): delivery-health checks read
    /// acknowledged progress from it.
    public var linkStatistics: SRTLinkStatistics? { status.srt }

    private static func status(of sender: SRTSender, droppedAtQueue: Int, held: Int) -> OutputStatus {
        let shared = sender.shared.withLock { $0 }
        var status = shared.status
        status.framesDropped += droppedAtQueue
        status.framesHeldForKeyFrame = held
        status.srt = shared.link
        status.srt?.callersRejected = shared.callersRejected
        // A stopped output has no receiver to judge; its report stays.
        status.health = shared.status.state == .stopped ? nil : shared.health.state
        status.delivery = shared.health.report(at: MonotonicClock.nowNanos())
        return status
    }
}
