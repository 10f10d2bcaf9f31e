import Codec
import Foundation
import Logging
import MediaCore
import NIOCore
import NIOPosix
import Output
import RTP
import SRTP
import Synchronization

/// Plain RTP or SRTP out to `rtp://HOST:PORT`: H.264 (RFC 6184) on PORT, RTCP on PORT + 1, with
/// a random SSRC, initial sequence number and timestamp offset, Sender Reports every second and
/// answers to NACK (retransmission), PLI/FIR (rate-limited key frame requests), RR and REMB.
/// When the stream has audio, Opus (RFC 7587, 48 kHz clock, its own SSRC) goes to PORT + 2 with
/// RTCP on PORT + 3, on the same capture timeline (the Sender Reports let receivers sync them).
///
/// Threading: the encoder thread only enqueues (``onEncodedFrame(_:)`` never blocks). Frames go to
/// the socket's event loop, which alone owns the sender state (``RTPSenderHandler``); at most
/// `queueCapacity` frames wait there, and beyond that frames are dropped, counted, and a key frame
/// is requested so receivers recover at the next IDR; the same happens when the socket's backlog
/// passes `socketBacklogLimitBytes` (``SocketBacklogGate``). Delta frames after a drop are held
/// back until that IDR.
///
/// Delivery health comes from the receiver's RTCP receiver reports (``RTPSenderHandler+Health.swift``):
/// unknown (nil) while it sends none, stalled when they stop; RTP has no connection to renew, so a
/// stalled output keeps sending and is healthy again when they resume.
///
/// The SDP describing the stream needs the encoder's SPS/PPS, so `onSessionDescription` is called
/// (on the event loop) once the first frame carrying them is sent, and again if they change.
public final class RTPStreamOutput: StreamOutput {
    public let configuration: RTPOutputConfiguration
    public let ssrc: UInt32
    public let cname: String
    private let session: RTPSenderSession<H264Payloader>
    private let onSessionDescription: @Sendable (RTPSessionDescription) -> Void
    private let sessionID: UInt64
    private let started = Mutex<(sender: NIOLoopBound<RTPSenderHandler>, requestKeyFrame: @Sendable () -> Void)?>(nil)
    /// The send session's counters, as the event loop last published them.
    private let statistics = Mutex(RTPSendSession.Statistics())
    /// The event loop's last health state; nil until the receiver's first report.
    private let health = Mutex<DeliveryHealth?>(nil)
    private let logger: Logger
    /// The SSRC of the stream's Opus track, when it has one (``OutputStartContext/audioTrack``).
    public let audioSSRC: UInt32
    private let pendingAudioFrames = Atomic<Int>(0)
    private let droppedAudioFrames = Atomic<Int>(0)
    private let pendingFrames = Atomic<Int>(0)
    private let droppedFrames = Atomic<Int>(0)
    /// After a dropped frame, nothing until the next key frame (one request per gap).
    private let keyFrameGate = KeyFrameGate()
    private let stopped = Atomic<Bool>(false)

    public init(configuration: RTPOutputConfiguration, logger: Logger = Logger(label: "livepush.rtp"),
                onSessionDescription: @escaping @Sendable (RTPSessionDescription) -> Void = { _ in }) throws(RTPError) {
        var generator = SystemRandomNumberGenerator()
        ssrc = UInt32.random(in: .min ... .max, using: &generator)
        audioSSRC = UInt32.random(in: .min ... .max, using: &generator)
        sessionID = UInt64.random(in: 1...UInt64(Int64.max), using: &generator)
        // RFC 7022: a random CNAME per stream, not user@host.
        cname = "livepush-" + String(UInt64.random(in: .min ... .max, using: &generator), radix: 16)
        let packetizer = try RTPPacketizer(
            ssrc: ssrc, payloadType: configuration.payloadType,
            payloader: try H264Payloader(maxPayloadSize: configuration.maxPayloadSize), using: &generator)
        session = RTPSenderSession(
            packetizer: packetizer, cname: cname, historyCapacity: configuration.historyCapacity,
            limiter: KeyFrameRequestLimiter(minimumIntervalNanos: configuration.keyFrameRequestIntervalNanos))
        self.configuration = configuration
        self.onSessionDescription = onSessionDescription
        var logger = logger
        logger[metadataKey: "output"] = "\(configuration.destination)"
        self.logger = logger
    }

    public var name: String { configuration.keyingMaterial == nil ? "\(configuration.destination)" : "s\(configuration.destination)" }

    /// Sends audio too when the context has the Opus track.
    public func start(_ context: OutputStartContext) async throws {
        let requestKeyFrame = context.requestKeyFrame
        let destination = configuration.destination
        let video: RTPSenderHandler.Route, audioRoute: RTPSenderHandler.Route
        do {
            video = .init(rtp: try SocketAddress.makeAddressResolvingHost(destination.host, port: destination.port),
                          rtcp: try SocketAddress.makeAddressResolvingHost(destination.host, port: destination.rtcpPort))
            audioRoute = .init(rtp: try SocketAddress.makeAddressResolvingHost(destination.host, port: destination.audioPort),
                               rtcp: try SocketAddress.makeAddressResolvingHost(destination.host, port: destination.audioRTCPPort))
        } catch {
            throw RTPOutputError.unresolvableHost(destination.host)
        }
        let track = context.audioTrack
        var generator = SystemRandomNumberGenerator()
        let audio = try track.map { _ throws(RTPError) in
            RTPSenderSession(packetizer: try RTPPacketizer(ssrc: audioSSRC, payloadType: configuration.audioPayloadType,
                                                           payloader: OpusPayloader(maxPayloadSize: configuration.maxPayloadSize), using: &generator),
                             cname: cname, historyCapacity: 1)
        }
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let describe = describer(address: video.rtp, audio: track)
        let publish: @Sendable (RTPSendSession.Statistics) -> Void = { [weak self] latest in
            self?.statistics.withLock { $0 = latest }
        }
        let publishHealth: @Sendable (DeliveryHealth?) -> Void = { [weak self] latest in
            self?.health.withLock { $0 = latest }
        }
        let sender = try await loop.submit { [session, configuration, logger] in
            NIOLoopBound(try RTPSenderHandler(
                session: session, audio: audio, configuration: configuration, video: video, audioRoute: audioRoute,
                requestKeyFrame: requestKeyFrame, describe: describe,
                publish: publish, publishHealth: publishHealth, logger: logger), eventLoop: loop)
        }.get()
        do {
            _ = try await DatagramBootstrap(group: loop)
                .channelOption(.writeBufferWaterMark, value: .init(low: configuration.socketBacklogLimitBytes / 2,
                                                                   high: configuration.socketBacklogLimitBytes))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(sender.value) }
                }
                .bind(to: Self.localAddress(for: video.rtp, port: configuration.localPort ?? 0)).get()
        } catch {
            throw RTPOutputError.socketFailed("\(error)")
        }
        started.withLock { $0 = (sender, requestKeyFrame) }
        // Receivers can decode from the first frame only if it is an IDR.
        requestKeyFrame()
    }

    public func onEncodedFrame(_ frame: EncodedVideoFrame) {
        guard !stopped.load(ordering: .relaxed), let (sender, requestKeyFrame) = started.withLock({ $0 }) else { return }
        guard keyFrameGate.admits(frame) else { return }
        guard pendingFrames.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue <= configuration.queueCapacity else {
            pendingFrames.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            droppedFrames.wrappingAdd(1, ordering: .relaxed)
            if keyFrameGate.frameLost() { requestKeyFrame() }
            return
        }
        sender.eventLoop.execute {
            sender.value.send(frame)
            self.pendingFrames.wrappingSubtract(1, ordering: .acquiringAndReleasing)
        }
    }

    /// Opus (RFC 7587) on PORT + 2, when the stream has audio.
    public var audioCodec: AudioCodec? { .opus }

    /// Like video: only enqueue on the socket's event loop, dropping (and counting) beyond the queue.
    public func onEncodedAudio(_ frame: EncodedAudioFrame) {
        guard !stopped.load(ordering: .relaxed), let (sender, _) = started.withLock({ $0 }) else { return }
        guard pendingAudioFrames.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue <= configuration.audioQueueCapacity else {
            pendingAudioFrames.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            droppedAudioFrames.wrappingAdd(1, ordering: .relaxed)
            return
        }
        sender.eventLoop.execute {
            sender.value.send(frame)
            self.pendingAudioFrames.wrappingSubtract(1, ordering: .acquiringAndReleasing)
        }
    }

    public func onEncoderError(_ error: CodecError) {
        statistics.withLock { latest in
            var video = latest.video ?? RTPSenderStatistics()
            video.lastError = "\(error)"
            latest.video = video
        }
    }

    /// Sends what is queued, then a BYE, and closes the socket.
    public func stop() async {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing), let (sender, _) = started.withLock({ $0 }) else { return }
        // The loop runs tasks in order: this runs after every frame already queued.
        let closed = try? await sender.eventLoop.submit { sender.value.finish() }.get()
        try? await closed?.get()
    }

    /// The video stream's counters.
    public var senderStatistics: RTPSenderStatistics {
        var latest = statistics.withLock { $0.video } ?? RTPSenderStatistics()
        latest.framesDropped = droppedFrames.load(ordering: .relaxed)
        return latest
    }

    /// The audio stream's counters, when the stream has audio.
    public var audioSenderStatistics: RTPSenderStatistics? {
        guard var latest = statistics.withLock({ $0.audio }) else { return nil }
        latest.framesDropped = droppedAudioFrames.load(ordering: .relaxed)
        return latest
    }

    public var status: OutputStatus {
        let latest = senderStatistics
        let session = statistics.withLock { $0 }
        let isStarted = started.withLock { $0 != nil }
        var status = OutputStatus(state: stopped.load(ordering: .relaxed) ? .stopped : isStarted ? .running : .starting)
        status.framesSent = latest.framesSent
        status.framesDropped = latest.framesDropped + session.framesDroppedAtSocket
        status.framesDroppedAtSocket = session.framesDroppedAtSocket
        status.framesHeldForKeyFrame = keyFrameGate.framesHeldBack + session.framesHeldAtSocket
        let audio = audioSenderStatistics
        // Video frames are what the status counts; bytes are everything on the wire.
        status.bytesSent = latest.bytesSent + (audio?.bytesSent ?? 0)
        status.lastError = latest.lastError ?? audio?.lastError
        let drops = ["queue full": latest.framesDropped, "socket backed up": session.framesDroppedAtSocket]
        if let health = health.withLock({ $0 }) {
            status.health = status.state == .stopped ? nil : health.state
            status.delivery = health.report(at: MonotonicClock.nowNanos())
        } else {
            // No receiver report yet: no evidence either way, so no health; the report says why.
            status.delivery = DeliveryReport(evidence: ReceiverReportSampling.receiverReportEvidence,
                                             unknownBecause: RTPSenderHandler.noReportsYet, bytesSent: latest.bytesSent)
        }
        status.delivery?.framesDropped = drops
        return status
    }

    private func describer(address: SocketAddress, audio: AudioTrack?) -> @Sendable (ParameterSets) -> Void {
        let base = RTPSessionDescription(
            connectionAddress: address.ipAddress ?? configuration.destination.host, sessionID: sessionID, cname: cname,
            video: .init(port: configuration.destination.port, payloadType: configuration.payloadType, ssrc: ssrc,
                         parameterSets: ParameterSets(codec: .h264)),
            audio: audio.map { .init(port: configuration.destination.audioPort, payloadType: configuration.audioPayloadType,
                                     ssrc: audioSSRC, channels: $0.format.channels) },
            keyingMaterial: configuration.keyingMaterial)
        return { [onSessionDescription] parameterSets in
            var description = base
            description.video.parameterSets = parameterSets
            onSessionDescription(description)
        }
    }

    /// A loopback destination is sent to from loopback (nothing else can reach the socket);
    /// others from any local address; from `port`, or an ephemeral one when it is 0.
    private static func localAddress(for destination: SocketAddress, port: Int) throws -> SocketAddress {
        let isLoopback = destination.ipAddress.map { $0 == "::1" || $0.hasPrefix("127.") } ?? false
        switch (destination.protocol, isLoopback) {
        case (.inet6, true): return try SocketAddress(ipAddress: "::1", port: port)
        case (.inet6, false): return try SocketAddress(ipAddress: "::", port: port)
        case (_, true): return try SocketAddress(ipAddress: "127.0.0.1", port: port)
        default: return try SocketAddress(ipAddress: "0.0.0.0", port: port)
        }
    }
}
