import CFFmpegFormat
import Codec
import Logging
import MediaCore
import CSRT
import Output
import Synchronization

/// The SRT output's thread state: the connection (caller) or the listening socket and the receiver
/// it accepted (listener), the muxer of the current connection, and its ``ConnectionLifecycle``
/// (connect, lose, back off, give up, stop). Every method runs on the output's one thread, where
/// libsrt may block.
///
/// Nothing waits here for a connection: connects run in libsrt's background (checked at each
/// frame). While one is under way the frames since the last keyframe are held; otherwise, with no
/// connection, frames are counted as dropped. Every connection starts on a keyframe, whose
/// parameter sets come in front of it.
final class SRTSender: @unchecked Sendable {
    struct Shared: Sendable {
        var status = OutputStatus(state: .starting)
        var link = SRTLinkStatistics()
        var health: DeliveryHealth
        /// Listener: callers libsrt turned away in the handshake (a wrong passphrase).
        var callersRejected = 0
    }

    let configuration: SRTOutputConfiguration
    let shared: Mutex<Shared>
    static let acknowledgementEvidence = "SRT acknowledgement"
    /// Media the receiver may hold before its acknowledgements show it (ACKs come every 10 ms; this
    /// covers a round trip of packets in flight).
    static let inFlightAllowanceBytes: Int64 = 64 * 1024
    /// What this connection's receiver has acknowledged: the bytes sent minus those still in the send
    /// buffer, taken only when libsrt counts a new ACK (a dead link's buffer also empties, by too-late drops).
    private var acknowledged = (acks: Int64(0), bytes: Int64(0))
    let stopping = Atomic<Bool>(false)
    let logger: Logger
    private let requestKeyFrame: @Sendable () -> Void
    /// Caps the camera's encoder (nil lifts this output's cap); only with adaptive bitrate.
    private let limitBitrate: (@Sendable (Int?) -> Void)?
    private var bitrateController: AdaptiveBitrateController?
    private var listener: SRTSocket?
    var connection: SRTSocket?
    /// The connection the stream moved off at a return to the primary, until its receiver has had the last packets.
    var retiring: RetiringSRTConnection?
    /// Caller: the connect under way, and what arrived since the last keyframe meanwhile.
    private var pending: SRTSocket?
    private var held: [SRTStreamOutput.Item] = []
    /// When the keyframe that `held` starts with arrived (monotonic).
    private var heldSinceNanos: Int64 = 0
    var muxer: MPEGTSMuxer?
    /// Set with `capture_time: sei`: each frame is stamped just before the muxer takes it.
    private var captureTimeStamper: CaptureTimeStamper?
    private let audio: AudioTrack?
    /// The first frame's DTS: the TS timeline of every connection counts from it.
    private var originNanos: Int64?
    typealias Lifecycle = ConnectionLifecycle<SRTOutputError, SystemRandomNumberGenerator>
    private var lifecycle: Lifecycle
    /// Caller: a stream ID refused as in use soon after a loss of ours is tried again soon (``KeyInUseRetry``).
    private var keyInUse: KeyInUseRetry
    /// Caller: when the backoff of the lifecycle's `scheduleRetry` ends (monotonic); checked at each frame.
    private var nextAttemptNanos: Int64 = 0
    var earlierTotals = SRTLinkStatistics()
    /// Which ingest (the primary or a backup) carries the stream, and what connections to it are
    /// made with (SRTSender+Failover).
    var failover: IngestFailover
    var target: SRTOutputConfiguration
    /// Caller on a backup: the connect to the primary under way that probes it, and when the next may start.
    var probe: SRTSocket?
    var nextProbeNanos: Int64 = 0
    private var lastSampleNanos: Int64 = 0
    static let sampleIntervalNanos: Int64 = 250_000_000
    /// How long a stop waits at most for the receiver to take the last packets (latency windows
    /// above this are cut short).
    static let drainSeconds = 3.0

    init(configuration: SRTOutputConfiguration, audio: AudioTrack?, logger: Logger, requestKeyFrame: @escaping @Sendable () -> Void,
         limitBitrate: (@Sendable (Int?) -> Void)?) {
        self.configuration = configuration
        self.audio = audio
        self.logger = logger
        self.requestKeyFrame = requestKeyFrame
        self.limitBitrate = limitBitrate
        // A listener has no one to dial: it waits for the next receiver at once, and for ever.
        lifecycle = .init(policy: configuration.mode == .listener ? ReconnectPolicy() : configuration.reconnect,
                          random: SystemRandomNumberGenerator())
        shared = Mutex(Shared(health: DeliveryHealth(settings: .init(stallTimeoutSeconds: configuration.stallTimeoutSeconds),
                                                     evidence: Self.acknowledgementEvidence)))
        bitrateController = limitBitrate == nil ? nil : configuration.adaptiveBitrate.map(AdaptiveBitrateController.init)
        if configuration.captureTime == .sei { captureTimeStamper = CaptureTimeStamper() }
        keyInUse = KeyInUseRetry(settings: configuration.keyInUseRetry)
        failover = IngestFailover(backups: configuration.backups.count, settings: configuration.failover, nowNanos: MonotonicClock.nowNanos())
        target = configuration
        if failover.hasBackups { reportIngest() }
        _ = lp_avformat_open_library()  // loaded while the camera opens: see its header
    }

    /// Listener: binds the port now, so a port in use fails the start.
    func prepare() throws(SRTOutputError) {
        guard configuration.mode == .listener else { return }
        let socket = try SRTSocket.make(configuration)
        try socket.listen(host: configuration.host, port: configuration.port)
        listener = socket
        apply(lifecycle.handle(.start))
    }

    /// Stopping sends what is queued while connected, but dials no more.
    func handle(_ item: SRTStreamOutput.Item) {
        switch item {
        case let .video(frame): send(frame)
        case let .audio(frame): send(frame)
        }
    }

    private func send(_ frame: EncodedVideoFrame) {
        if originNanos == nil { originNanos = frame.dtsNanos }
        if connection == nil {
            connectIfDue()
            guard connection != nil else { return pending == nil ? countDropped() : hold(.video(frame)) }
        }
        releaseHeld()
        write(frame)
        if failover.hasBackups { probePrimaryIfDue() }
        if retiring?.isDone(nowNanos: MonotonicClock.nowNanos()) == true { retiring = nil }
    }

    private func write(_ frame: EncodedVideoFrame) {
        if muxer == nil {
            guard connection != nil, frame.isKeyFrame else { return countDropped() }
            do throws(SRTOutputError) {
                muxer = try makeMuxer(codec: frame.codec)
            } catch {
                return lose(error)
            }
        }
        do throws(SRTOutputError) {
            try muxer?.write(captureTimeStamper?.stamped(frame) ?? frame)
            update { $0.status.framesSent += 1; $0.status.bytesSent += Int64(frame.data.count) }
            sampleStatistics()
        } catch {
            lose(error)
        }
    }

    private func send(_ frame: EncodedAudioFrame) {
        if connection == nil, pending != nil { return hold(.audio(frame)) }
        write(frame)
    }

    private func write(_ frame: EncodedAudioFrame) {
        guard let muxer else { return }
        do throws(SRTOutputError) {
            try muxer.write(frame)
            update { $0.status.bytesSent += Int64(frame.data.count) }
        } catch {
            lose(error)
        }
    }

    /// While a connect is under way, keeps what came since the last keyframe (at most a queue's
    /// worth), so the stream starts whole when it succeeds instead of at the next keyframe.
    private func hold(_ item: SRTStreamOutput.Item) {
        if case let .video(frame) = item, frame.isKeyFrame {
            dropHeld()
            heldSinceNanos = MonotonicClock.nowNanos()
        }
        guard case let .video(first) = held.first ?? item, first.isKeyFrame, held.count < configuration.queueCapacity else {
            if case .video = item { countDropped() }
            return
        }
        held.append(item)
    }

    private func dropHeld() {
        for case .video in held { countDropped() }
        held.removeAll(keepingCapacity: true)
    }

    /// Sends what was held during the connect, in order; unless the connect took longer than the
    /// latency window. Then the held frames would leave in one burst that libsrt cannot pace out
    /// before its too-late drop, the receiver would lose part of it and fail to decode what follows;
    /// so they are dropped (and counted), and the connection starts on the keyframe asked for.
    private func releaseHeld() {
        guard !held.isEmpty else { return }
        let heldMilliseconds = (MonotonicClock.nowNanos() - heldSinceNanos) / 1_000_000
        let latencyMilliseconds = Int64(configuration.latencyMilliseconds ?? SRTOutputConfiguration.defaultLatencyMilliseconds)
        guard heldMilliseconds <= latencyMilliseconds else {
            logger.info("SRT connect took longer than the latency window: starting on the next keyframe",
                        metadata: ["output": "\(configuration.maskedTarget)", "held_ms": "\(heldMilliseconds)",
                                   "latency_ms": "\(latencyMilliseconds)"])
            return dropHeld()
        }
        let items = held
        held.removeAll(keepingCapacity: true)
        for item in items {
            switch item {
            case let .video(frame): write(frame)
            case let .audio(frame): write(frame)
            }
        }
    }

    private func makeMuxer(codec: VideoCodec) throws(SRTOutputError) -> MPEGTSMuxer {
        guard let connection else { throw .sendFailed(reason: "not connected") }
        return try MPEGTSMuxer(codec: codec, audio: audio, originNanos: originNanos ?? 0) { payload in
            do throws(SRTOutputError) {
                try connection.send(payload)
                return true
            } catch {
                return false
            }
        }
    }

    /// Caller: dials when the backoff allows. Listener: takes a receiver that dialled in.
    private func connectIfDue() {
        guard !stopping.load(ordering: .relaxed) else { return }
        let now = MonotonicClock.nowNanos()
        switch configuration.mode {
        case .listener:
            let accepted = listener?.acceptPending()
            for address in listener?.rejectedCallers(accepted: accepted) ?? [] {
                callerRejected(.callerRejected(address: address, listenerHasPassphrase: configuration.passphrase != nil))
            }
            guard let accepted else { return }
            connected(accepted)
        case .caller:
            if pending == nil {
                switch lifecycle.state {
                case .idle: apply(lifecycle.handle(.start))
                case .waiting where now >= nextAttemptNanos: apply(lifecycle.handle(.retryDue))
                default: break
                }
            }
            guard let socket = pending else { return }
            switch socket.progress(target: target.maskedTarget) {
            case .connecting: return
            case .connected:
                pending = nil
                connected(socket)
            case let .failed(error):
                pending = nil
                dropHeld()
                connectFailed(error)
            }
        }
    }

    /// A caller libsrt turned away: logged and counted; the listener keeps waiting for the next.
    private func callerRejected(_ error: SRTOutputError) {
        logger.warning("\(error)", metadata: ["output": "\(configuration.maskedTarget)"])
        update {
            $0.callersRejected += 1
            $0.status.lastError = "\(error)"
        }
    }

    /// Does what the ``ConnectionLifecycle`` decided.
    private func apply(_ actions: [ConnectionLifecycle<SRTOutputError, SystemRandomNumberGenerator>.Action]) {
        for action in actions {
            switch action {
            case .connect:
                dial()
            case .scheduleRetry(let seconds, _):
                if configuration.mode == .caller {
                    nextAttemptNanos = MonotonicClock.nowNanos() + Int64(seconds * 1e9)
                } else {
                    apply(lifecycle.handle(.retryDue)) // a listener waits for the next receiver at once
                }
            case .report(let state):
                update { $0.status.state = shown(state) }
            case .recordError(let error):
                update { $0.status.lastError = "\(error)" }
            case .countLoss(let cause):
                let now = MonotonicClock.nowNanos()
                keyInUse.ownConnectionLost(atNanos: now)
                update { $0.health.lost(nowNanos: now, cause: cause) }
            case .giveUp:
                update { $0.status.state = .failed }
            case .close:
                closeConnections()
            case .finished:
                let now = MonotonicClock.nowNanos()
                update {
                    $0.status.state = .stopped
                    $0.health.finished(nowNanos: now)
                }
            case .cancelRetry, .connectReplacement, .handOverAtNextKeyFrame, .handOverNow, .repair:
                // No timer to cancel (the backoff is checked at each frame); SRT has no server-requested
                // move and no repair in place (it never reports an interruption).
                break
            }
        }
    }

    /// What the status shows for a lifecycle state: a listener, or a caller that never connected,
    /// is connecting (not reconnecting) until a receiver is there.
    private func shown(_ state: OutputStatus.State) -> OutputStatus.State {
        guard state == .reconnecting, configuration.mode == .listener || lifecycle.connectionsLive == 0 else { return state }
        return .connecting
    }

    /// Caller: starts a connect in libsrt's background (``connectIfDue()`` checks its progress).
    private func dial() {
        guard configuration.mode == .caller else { return }
        do throws(SRTOutputError) {
            let socket = try SRTSocket.make(target)
            try socket.startConnect(host: target.host, port: target.port, target: target.maskedTarget)
            pending = socket
        } catch {
            connectFailed(error)
        }
    }

    /// The lifecycle counts the attempt and waits the backoff before the next (or gives up when attempts
    /// are used up); a stream ID refused as in use soon after a loss of ours is tried again soon, at the
    /// same ingest, without counting an attempt.
    private func connectFailed(_ error: SRTOutputError) {
        let failedTarget = target.maskedTarget  // the next ingest's, with backups, once the loss is handled
        let soon = error.isKeyInUse ? retrySoon() : nil
        let actions = lifecycle.handle(soon.map { .refusedKeyInUse(error, retryAfterSeconds: $0) } ?? lossEvent(after: error))
        let delay = actions.lazy.compactMap { action -> Double? in
            if case .scheduleRetry(let seconds, _) = action { seconds } else { nil }
        }.first
        logger.warning("SRT connect failed", metadata: ["output": "\(failedTarget)", "error": "\(error)",
                                                        "retry_in_seconds": "\(delay.map { String(format: "%.2f", $0) } ?? "never")"])
        apply(actions)
    }

    /// After an in-use refusal: the seconds until the next try, or nil for the backoff; the status says which.
    private func retrySoon() -> Double? {
        let verdict = keyInUse.judgeRefusal(atNanos: MonotonicClock.nowNanos())
        update { $0.status.stateReason = verdict.stateReason }
        verdict.log(to: logger, metadata: ["output": "\(target.maskedTarget)"])
        return verdict.retryAfterSeconds
    }

    func connected(_ socket: SRTSocket) {
        connection = socket
        keyInUse.connected()
        failover.connected()
        logger.info("SRT connected", metadata: ["output": "\(target.maskedTarget)", "latency_ms": "\(socket.peerLatencyMilliseconds)"])
        acknowledged = (0, 0)
        let now = MonotonicClock.nowNanos()
        let actions = lifecycle.handle(.connected)
        let reconnects = lifecycle.reconnects
        update {
            $0.status.reconnects = reconnects
            $0.status.stateReason = nil
            $0.health.connected(nowNanos: now)
        }
        apply(actions)
        // The receiver can decode from the first frame only if it is a keyframe with parameter sets.
        requestKeyFrame()
    }

    /// The connection broke: fold its totals in, close it, and try again after the backoff.
    private func lose(_ error: SRTOutputError) {
        logger.warning("SRT connection lost", metadata: ["output": "\(configuration.maskedTarget)", "error": "\(error)"])
        sampleStatistics(force: true)
        earlierTotals = shared.withLock { $0.link }
        muxer = nil
        connection = nil
        apply(lifecycle.handle(lossEvent(after: error)))
        countDropped()
    }

    private func countDropped() { update { $0.status.framesDropped += 1 } }

    func sampleStatistics(force: Bool = false) {
        let now = MonotonicClock.nowNanos()
        guard force || now - lastSampleNanos >= Self.sampleIntervalNanos, let connection, let sample = connection.statistics() else { return }
        lastSampleNanos = now
        let link = SRTLinkStatistics(earlier: earlierTotals, current: sample, latencyMilliseconds: connection.peerLatencyMilliseconds)
        update { $0.link = link }
        adaptBitrate(to: link, now: now)
        judgeDelivery(sample, now: now)
    }

    /// Feeds this connection's acknowledgements to the health state; a stall replaces the connection.
    private func judgeDelivery(_ sample: SRT_TRACEBSTATS, now: Int64) {
        let sent = Int64(sample.byteSentUniqueTotal)
        if Int64(sample.pktRecvACKTotal) > acknowledged.acks {
            acknowledged = (Int64(sample.pktRecvACKTotal), max(acknowledged.bytes, sent - Int64(sample.byteSndBuf)))
        }
        let observed = DeliveryHealth.Sample(nowNanos: now, bytesSent: sent, bytesAcknowledged: acknowledged.bytes,
                                             acknowledgementStepBytes: Self.inFlightAllowanceBytes, framesDropped: 0,
                                             evidence: Self.acknowledgementEvidence)
        let (change, evidence) = shared.withLock { shared -> (DeliveryHealth.State?, String) in
            var observed = observed
            observed.framesDropped = shared.status.framesDropped
            return (shared.health.observe(observed), shared.health.stallDescription)
        }
        switch change {
        case .stalled:
            logger.warning("stalled: \(evidence); reconnecting", metadata: ["output": "\(configuration.maskedTarget)"])
            lose(.stalled(evidence: evidence))
        case .degraded:
            logger.info("delivery degraded", metadata: ["output": "\(configuration.maskedTarget)", "evidence": "\(evidence)"])
        case .healthy:
            logger.info("delivery healthy again", metadata: ["output": "\(configuration.maskedTarget)"])
        case .reconnecting, .failed, nil:
            break
        }
    }

    /// Feeds the send buffer and RTT to the controller; a decision caps the encoder, back at the
    /// target lifts the cap.
    private func adaptBitrate(to link: SRTLinkStatistics, now: Int64) {
        guard var controller = bitrateController, let limitBitrate else { return }
        let sample = AdaptiveBitrateController.Sample(nowNanos: now, queuedMilliseconds: Int64(link.sendBufferMilliseconds),
                                                      rttMicroseconds: Int(link.rttMilliseconds * 1000))
        let decision = controller.update(sample)
        bitrateController = controller
        guard let bitrate = decision else { return }
        logger.info("adaptive bitrate", metadata: ["output": "\(configuration.maskedTarget)", "bitrate": "\(bitrate / 1000) kbit/s",
                                                   "send_buffer_ms": "\(link.sendBufferMilliseconds)", "latency_ms": "\(link.latencyMilliseconds)"])
        limitBitrate(bitrate < controller.settings.targetBitsPerSecond ? bitrate : nil)
    }

    func update(_ change: (inout Shared) -> Void) { shared.withLock { change(&$0) } }

    /// Closes the connection and the listening socket (on the output's thread, after the last frame).
    func close() {
        apply(lifecycle.handle(.stop))
    }

    private func closeConnections() {
        muxer?.finish()
        connection?.drain(timeoutSeconds: Self.drainSeconds)
        retiring?.socket.drain(timeoutSeconds: Self.drainSeconds)
        retiring = nil
        sampleStatistics(force: true)
        muxer = nil
        connection = nil
        pending = nil
        probe = nil
        dropHeld()
        listener = nil
        if bitrateController != nil { limitBitrate?(nil) }
        apply(lifecycle.handle(.closed))
    }
}
