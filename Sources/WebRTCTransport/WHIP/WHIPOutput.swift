import Codec
import DTLS
import Logging
import MediaCore
import NIOCore
import NIOPosix
import Output
import RTPOutput
import Synchronization
import WebRTC

/// Publishes the shared encode to a WebRTC server over WHIP (RFC 9725): MediaMTX, Janus, a CDN's
/// ingest. One session at a time; a lost session is replaced (ICE restart first, then a fresh
/// session with backoff), and on stop the session resource is deleted.
///
/// Threads: `onEncodedFrame` runs on the encoder thread and only hands the frame to this output's
/// event loop through a bounded ``EventLoopHandoff`` (overflow drops and asks for a key frame; so
/// does a socket backed up past NIO's 64 KiB high-water mark, ``SocketBacklogGate``).
/// Everything else — HTTP, ICE, DTLS, SRTP — runs on that one event loop (``WHIPPublisher``).
public final class WHIPOutput: StreamOutput {
    public let configuration: WHIPOutputConfiguration
    private let eventLoop: EventLoop
    private let dtlsContext: DTLSContext
    private let logger: Logger
    private let video: EventLoopHandoff
    private let audio: EventLoopHandoff
    private let publisher = Mutex<NIOLoopBound<WHIPPublisher>?>(nil)
    private let snapshot: Mutex<WHIPPublisher.Snapshot>
    private let counters = Mutex<(framesSent: Int, bytesSent: Int64, socket: SocketBacklogGate)>((0, 0, SocketBacklogGate()))
    private let keyFrameRequest = Mutex<@Sendable () -> Void>({})
    /// After a dropped frame, nothing until the next key frame; one request per gap, not one per
    /// dropped frame (which on a congested path would turn the stream into key frames).
    private let keyFrameGate = KeyFrameGate()

    /// What the sender implements: H.264 with NACK (RTX when the server takes it), PLI/FIR, REMB,
    /// and rotation as CVO; Opus when the stream has audio.
    static func capabilities(audio: Bool) -> SenderCapabilities {
        SenderCapabilities(opus: audio, rtx: true, videoOrientation: true, transportWideCC: false,
                           feedback: [.nack, .pictureLossIndication, .fullIntraRequest, .receiverEstimatedMaximumBitrate])
    }

    public init(configuration: WHIPOutputConfiguration, group: EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                logger: Logger = Logger(label: "livepush.whip")) throws(DTLSError) {
        self.configuration = configuration
        eventLoop = group.next()
        dtlsContext = try DTLSContext(certificate: DTLSCertificate())
        var logger = logger
        logger[metadataKey: "output"] = "\(configuration.endpoint.redacted)"
        self.logger = logger
        snapshot = Mutex(WHIPPublisher.Snapshot(health: DeliveryHealth(settings: .init(stallTimeoutSeconds: configuration.stallTimeoutSeconds),
                                                                        evidence: ReceiverReportSampling.receiverReportEvidence)))
        video = EventLoopHandoff(capacity: configuration.queueCapacity)
        audio = EventLoopHandoff(capacity: configuration.audioQueueCapacity)
    }

    public var name: String { "whip:\(configuration.endpoint.redacted)" }

    /// WebRTC carries Opus (RFC 7587).
    public var audioCodec: AudioCodec? { .opus }

    /// Starts the first session in the background and returns at once: a dead server must not
    /// delay the other outputs. It offers Opus when the context has the audio track.
    public func start(_ context: OutputStartContext) async throws {
        let requestKeyFrame = context.requestKeyFrame
        keyFrameRequest.withLock { $0 = requestKeyFrame }
        let (configuration, dtlsContext, logger, eventLoop) = (self.configuration, self.dtlsContext, self.logger, self.eventLoop)
        let capabilities = Self.capabilities(audio: context.audioTrack != nil)
        let bound = try await eventLoop.submit {
            let publisher = WHIPPublisher(configuration: configuration, eventLoop: eventLoop, dtlsContext: dtlsContext,
                                          capabilities: capabilities, logger: logger, requestKeyFrame: requestKeyFrame) { [weak self] latest in
                self?.snapshot.withLock { $0 = latest }
            }
            publisher.start()
            return NIOLoopBound(publisher, eventLoop: eventLoop)
        }.get()
        publisher.withLock { $0 = bound }
    }

    public func onEncodedFrame(_ frame: EncodedVideoFrame) {
        guard let publisher = publisher.withLock({ $0 }) else { return }
        guard keyFrameGate.admits(frame) else { return }
        let accepted = video.submit(on: eventLoop) {
            let value = publisher.value
            value.send(frame)
            self.counters.withLock { $0 = (value.framesSent, value.bytesSent, value.socketGate) }
        }
        if !accepted, keyFrameGate.frameLost() { keyFrameRequest.withLock { $0 }() }
    }

    public func onEncodedAudio(_ frame: EncodedAudioFrame) {
        guard let publisher = publisher.withLock({ $0 }) else { return }
        _ = audio.submit(on: eventLoop) { publisher.value.send(frame) }
    }

    public func onEncoderError(_ error: CodecError) {
        logger.error("encoder failed; nothing more to send", metadata: ["error": "\(error)"])
    }

    /// Deletes the session (within the request timeout) and closes the peer connection.
    public func stop() async {
        guard let publisher = publisher.withLock({ $0 }) else { return }
        let promise = eventLoop.makePromise(of: Void.self)
        eventLoop.execute { publisher.value.stop(promise) }
        try? await promise.futureResult.get()
    }

    public var status: OutputStatus {
        let latest = snapshot.withLock { $0 }
        var status = OutputStatus(state: latest.state)
        let (framesSent, bytesSent, socket) = counters.withLock { $0 }
        (status.framesSent, status.bytesSent) = (framesSent, bytesSent)
        status.framesDropped = video.droppedCount + socket.framesDropped
        status.framesDroppedAtSocket = socket.framesDropped
        status.framesHeldForKeyFrame = keyFrameGate.framesHeldBack + socket.framesHeldBack
        status.reconnects = max(0, latest.sessionsConnected - 1)
        status.lastError = latest.lastError
        status.health = latest.state == .stopped ? nil : latest.health.state
        var delivery = latest.health.report(at: MonotonicClock.nowNanos())
        delivery.framesDropped = ["queue full": video.droppedCount, "socket backed up": socket.framesDropped]
        status.delivery = delivery
        return status
    }
}
