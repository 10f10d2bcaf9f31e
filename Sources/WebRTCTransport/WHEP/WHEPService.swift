import Codec
import DTLS
import MediaCore
import NIOCore
import NIOPosix
import Output
import RTPOutput
import Synchronization
import WebRTC

/// The built-in WHEP endpoint (RFC 9725 for egress, draft-ietf-wish-whep): browsers POST an SDP
/// offer and watch the shared encode over WebRTC. One UDP port serves every viewer (ICE-lite,
/// DTLS-SRTP, RTCP muxed); a viewer costs packetization and SRTP protection, never an encode.
///
/// As a ``StreamOutput`` it receives the encoder's frames: the encoder thread only enqueues
/// (bounded by `queueCapacity` per rendition, ``RenditionHandOffBound``; overflow drops the frame,
/// counts it for its rendition and asks that rendition for a key frame);
/// the UDP event loop fans each frame out to the viewers it owns, or drops it while the socket's
/// backlog is past `socketBacklogLimitBytes` (``SocketBacklogGate``). HTTP routes come from
/// Server's `WHEPRoutes` (or ``createSession(offer:)``/``deleteSession(id:)`` for another server).
///
/// It serves every rendition of its camera (``servesAllRenditions``): each viewer gets one of
/// them, chosen from its own bandwidth estimate (transport-cc feedback, else REMB) and switched at
/// key frames (``RenditionSwitchPolicy``), so one viewer's link never lowers the shared encoders.
/// With one rendition the estimates cap the shared encoder instead (``adaptBitrate(configuredBitsPerSecond:minimumBitsPerSecond:)``).
public final class WHEPService: StreamOutput {
    public let configuration: WHEPConfiguration
    private let dtlsContext: DTLSContext
    private struct Running {
        let handler: NIOLoopBound<WHEPUDPHandler>
        let localAddress: TransportAddress
        let requestKeyFrame: @Sendable (_ rendition: Int) -> Void
        /// What the pipeline handed over at start: the Opus track, the renditions, the rotation
        /// fallback, the bitrate cap.
        let context: OutputStartContext
    }
    private let running = Mutex<Running?>(nil)
    private let statistics = Mutex(WHEPStatistics())
    /// Video frames waiting for the event loop and dropped, per rendition.
    private let handOff: Mutex<RenditionHandOffBound>
    /// After a dropped frame, nothing until the next key frame; one request per gap, not one per
    /// dropped frame (which on a congested path would turn the stream into key frames).
    private let keyFrameGates = Mutex<[KeyFrameGate]>([KeyFrameGate()])
    private let pendingAudioFrames = Atomic<Int>(0)
    private let droppedAudioFrames = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    /// The latest frame's rotation, in degrees: what a viewer must be able to apply.
    private let frameRotationDegrees = Atomic<Int>(0)
    /// Set by ``adaptBitrate(configuredBitsPerSecond:minimumBitsPerSecond:)``; nil keeps the bitrate fixed.
    private let rembPolicy = Mutex<REMBBitratePolicy?>(nil)

    public convenience init(configuration: WHEPConfiguration) throws(DTLSError) {
        // The throwing part runs before any stored property exists: Swift 6.3's release optimizer
        // crashes (CopyPropagation, "Found outside of lifetime use") on a designated init that
        // throws after initializing the Atomic properties.
        self.init(configuration: configuration, dtlsContext: try DTLSContext(certificate: DTLSCertificate()))
    }

    private init(configuration: WHEPConfiguration, dtlsContext: DTLSContext) {
        self.configuration = configuration
        self.dtlsContext = dtlsContext
        handOff = Mutex(RenditionHandOffBound(capacity: configuration.queueCapacity, renditions: 1))
    }

    /// What the per-viewer ``WebRTCMediaSender`` implements: H.264 with NACK (on RTX when the
    /// viewer offers it), PLI/FIR and REMB, the video orientation extension; Opus when the stream has
    /// audio; transport-wide congestion control (unless configured off) whatever the number of
    /// renditions. A viewer whose offer lacks transport-cc (aiortc) is answered without it and
    /// estimates with REMB: with several renditions either estimate moves it between them, with one
    /// the smallest caps the shared encoder.
    private func capabilities(audio: Bool, lowLatency: Bool) -> SenderCapabilities {
        let transportWideCC = configuration.transportWideCC
        var capabilities = SenderCapabilities(opus: audio, rtx: true, videoOrientation: true, transportWideCC: transportWideCC,
                                              feedback: Self.feedback(transportWideCC: transportWideCC))
        capabilities.lowLatency = lowLatency
        return capabilities
    }

    private static func feedback(transportWideCC: Bool) -> Set<RTCPFeedbackKind> {
        let always: Set<RTCPFeedbackKind> = [.nack, .pictureLossIndication, .fullIntraRequest, .receiverEstimatedMaximumBitrate]
        return transportWideCC ? always.union([.transportWideCC]) : always
    }

    public var name: String { "whep" + (udpAddress.map { " (udp \($0))" } ?? "") }

    /// The UDP address media flows on, once started.
    public var udpAddress: TransportAddress? { running.withLock { $0?.localAddress } }

    public var whepStatistics: WHEPStatistics {
        var latest = statistics.withLock { $0 }
        (latest.framesDropped, latest.framesDroppedByRendition) = handOff.withLock { ($0.totalDropped, $0.dropped) }
        latest.audioFramesDropped = droppedAudioFrames.load(ordering: .relaxed)
        latest.lastFrameRotationDegrees = frameRotationDegrees.load(ordering: .relaxed)
        return latest
    }

    /// Lets the viewers' REMB estimates cap the shared encoder's bitrate: the smallest estimate
    /// (with headroom) within `minimum…configured`, at most once a second (see ``REMBBitratePolicy``);
    /// back at `configured`, or stopped, the cap is lifted (``OutputStartContext/limitBitrate``).
    /// Call before ``start(_:)``.
    public func adaptBitrate(configuredBitsPerSecond: Int, minimumBitsPerSecond: Int) {
        rembPolicy.withLock {
            $0 = REMBBitratePolicy(configuredBitsPerSecond: configuredBitsPerSecond, minimumBitsPerSecond: minimumBitsPerSecond)
        }
    }

    public var servesAllRenditions: Bool { true }

    /// The bitrate a viewer's estimate starts from: the top rendition's, else the configured one.
    private func topBitsPerSecond(_ context: OutputStartContext) -> Int {
        if let top = context.renditions?.list.first?.bitrateBitsPerSecond { return top }
        return rembPolicy.withLock { $0?.configuredBitsPerSecond } ?? Self.defaultTopBitsPerSecond
    }

    static let defaultTopBitsPerSecond = 2_500_000

    /// Binds the shared UDP port. With the context's renditions, each gets its own share of the
    /// hand-off queue and its own drop gate (a burst or a drop in one never holds back another's frames).
    public func start(_ context: OutputStartContext) async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let publish: @Sendable (WHEPStatistics) -> Void = { [weak self] latest in self?.statistics.withLock { $0 = latest } }
        let limit = context.limitBitrate
        let prepared = context.renditions
        if let prepared {
            keyFrameGates.withLock { $0 = (0..<max(1, prepared.list.count)).map { _ in KeyFrameGate() } }
            handOff.withLock { $0 = RenditionHandOffBound(capacity: configuration.queueCapacity, renditions: prepared.list.count) }
        }
        // Several renditions: viewers switch between them; none of them lowers the shared encoders.
        let policy = (prepared?.list.count ?? 1) > 1 ? nil : rembPolicy.withLock { $0 }
        let bitrate: (policy: REMBBitratePolicy, apply: @Sendable (Int) -> Void)? = policy.map { policy in
            (policy: policy, apply: { @Sendable (bits: Int) in limit(bits < policy.configuredBitsPerSecond ? bits : nil) })
        }
        let requestRendition: @Sendable (Int) -> Void
        if let prepared {
            requestRendition = prepared.requestKeyFrame
        } else {
            requestRendition = { [requestKeyFrame = context.requestKeyFrame] _ in requestKeyFrame() }
        }
        let renditionCount = max(1, prepared?.list.count ?? 1)
        let handler = try await loop.submit {
            NIOLoopBound(WHEPUDPHandler(requestKeyFrame: requestRendition, renditionCount: renditionCount, publish: publish, bitrate: bitrate),
                         eventLoop: loop)
        }.get()
        let channel: Channel
        do {
            channel = try await DatagramBootstrap(group: loop)
                .channelOption(.writeBufferWaterMark, value: configuration.socketBacklogWaterMark)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler.value) }
                }
                .bind(host: configuration.udpHost, port: configuration.udpPort).get()
        } catch {
            throw WHEPError.socketFailed("\(configuration.udpHost):\(configuration.udpPort): \(error)")
        }
        guard let bound = channel.localAddress.flatMap(TransportAddress.init(socketAddress:)) else {
            throw WHEPError.socketFailed("no local address")
        }
        running.withLock { $0 = Running(handler: handler, localAddress: bound, requestKeyFrame: requestRendition, context: context) }
    }

    /// Viewers turn the picture from the video orientation extension (browsers offer it), so the
    /// encode need not turn pixels for this output. The first viewer whose offer lacks the
    /// extension while frames carry a rotation calls the context's rotation fallback
    /// (``OutputStartContext/rotatePixels``), so that viewer sees them upright too (``createSession(offer:from:lowLatency:)``).
    public var carriesRotationMetadata: Bool { true }

    public func onEncodedFrame(_ frame: EncodedVideoFrame) {
        frameRotationDegrees.store(frame.rotation.degrees, ordering: .relaxed)
        guard !stopped.load(ordering: .relaxed), let running = running.withLock({ $0 }) else { return }
        let keyFrameGate = keyFrameGates.withLock { $0.indices.contains(frame.rendition) ? $0[frame.rendition] : $0[0] }
        guard keyFrameGate.admits(frame) else { return }
        guard handOff.withLock({ $0.enqueue(rendition: frame.rendition) }) else {
            if keyFrameGate.frameLost() { running.requestKeyFrame(frame.rendition) }
            return
        }
        running.handler.eventLoop.execute {
            running.handler.value.broadcast(frame)
            self.handOff.withLock { $0.dequeue(rendition: frame.rendition) }
        }
    }

    /// Viewers get the stream's audio as Opus (RFC 7587) when they negotiate it.
    public var audioCodec: AudioCodec? { .opus }

    /// Like video: only enqueue on the UDP event loop, dropping (and counting) beyond the queue.
    public func onEncodedAudio(_ frame: EncodedAudioFrame) {
        guard !stopped.load(ordering: .relaxed), let running = running.withLock({ $0 }) else { return }
        guard pendingAudioFrames.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue <= configuration.audioQueueCapacity else {
            pendingAudioFrames.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            droppedAudioFrames.wrappingAdd(1, ordering: .relaxed)
            return
        }
        running.handler.eventLoop.execute {
            running.handler.value.broadcast(frame)
            self.pendingAudioFrames.wrappingSubtract(1, ordering: .acquiringAndReleasing)
        }
    }

    public func onEncoderError(_ error: CodecError) {
        statistics.withLock { $0.lastError = "\(error)" }
    }

    /// Closes every viewer (close_notify) and the socket.
    public func stop() async {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing), let running = running.withLock({ $0 }) else { return }
        let closed = try? await running.handler.eventLoop.submit { running.handler.value.finish() }.get()
        try? await closed?.get()
        running.context.limitBitrate(nil)
    }

    public var status: OutputStatus {
        let latest = whepStatistics
        var status = OutputStatus(state: stopped.load(ordering: .relaxed) ? .stopped : udpAddress == nil ? .starting : .running)
        status.framesSent = latest.framesBroadcast
        status.framesDropped = latest.framesDropped + latest.framesDroppedAtSocket
        status.framesDroppedAtSocket = latest.framesDroppedAtSocket
        status.framesHeldForKeyFrame = keyFrameGates.withLock { $0.reduce(0) { $0 + $1.framesHeldBack } } + latest.framesHeldAtSocket
        status.bytesSent = latest.totals.bytesSent
        status.lastError = latest.lastError
        // The worst of the connected viewers' (none: no receiver to judge).
        status.health = latest.viewerHealth.values.max { Self.severity($0) < Self.severity($1) }
        status.viewerLinks = latest.viewerLinks
        return status
    }

    private static func severity(_ state: DeliveryHealth.State) -> Int {
        switch state {
        case .healthy: 0
        case .degraded: 1
        case .reconnecting: 2
        case .stalled: 3
        case .failed: 4
        }
    }

    /// Answers a viewer's SDP offer: a new session id and the SDP answer (ICE-lite, our host
    /// candidate, DTLS fingerprint, `setup:passive`, H.264 as the offer allows). `client` names the
    /// HTTP client's address and how many viewers it may have at once; nil: no per-address limit.
    /// `lowLatency` (the POST's `?latency=low`): the viewer's playout-delay extension is answered
    /// and its frames tell it to keep no jitter buffer of its own beyond a few frames
    /// (``PlayoutDelay/lowLatency``), it is asked for RTCP XR receiver reference times, and its
    /// pacer lets a frame that finds it idle leave whole (``WHEPConfiguration/lowLatencyPacerBurstNanos``).
    public func createSession(offer: String, from client: WHEPClientLimit? = nil, lowLatency: Bool = false) async throws(WHEPError)
        -> (id: String, answer: String) {
        guard let running = running.withLock({ $0 }), !stopped.load(ordering: .relaxed) else { throw .notRunning }
        let parsed: SessionDescription
        do { parsed = try SessionDescription(parsing: offer) } catch { throw .badOffer("\(error)") }
        var generator = SystemRandomNumberGenerator()
        let id = String(UInt64.random(in: .min ... .max, using: &generator), radix: 36)
        let credentials = ICECredentials.random(using: &generator)
        let candidates = candidateAddresses(bound: running.localAddress).map { ICECandidate.host($0) }
        let answerer = WebRTCAnswerer(
            capabilities: capabilities(audio: running.context.audioTrack != nil, lowLatency: lowLatency),
            sources: LocalSources(videoSSRC: .random(in: 1 ... .max, using: &generator), videoRTXSSRC: .random(in: 1 ... .max, using: &generator),
                                  audioSSRC: .random(in: 1 ... .max, using: &generator), cname: "livepush-\(id)"),
            transport: LocalTransportParameters(credentials: credentials, fingerprint: dtlsContext.certificate.fingerprint,
                                                candidates: candidates, iceLite: true))
        let answer: SessionDescription, session: NegotiatedSession
        do {
            (answer, session) = try answerer.answer(parsed, sessionID: .random(in: 1 ... UInt64(Int64.max), using: &generator))
        } catch {
            throw .badOffer("\(error)")
        }
        guard let video = session.video else { throw .badOffer("no H.264 video section we can send") }
        // Rotated frames sent as captured would show sideways to a viewer that cannot apply the
        // rotation: once it is admitted, the shared encode turns the pixels from its next frame (an
        // IDR) for everyone, and this viewer's sender waits for that upright key frame
        // (``WebRTCMediaSender``). The switch is asked for whenever the encode may pass a rotation
        // through (the fallback is set), even before the first frame has told which rotation it is.
        let needsUprightPixels = video.videoOrientationExtensionID == nil
        let rotatePixels = running.context.rotatePixels
        if needsUprightPixels, rotatePixels == nil {
            let rotation = frameRotationDegrees.load(ordering: .relaxed)
            if rotation != 0 { throw .needsVideoOrientation(degrees: rotation) }
        }
        let (configuration, dtlsContext) = (self.configuration, self.dtlsContext)
        let media = configuration.mediaSender(topBitsPerSecond: topBitsPerSecond(running.context), lowLatency: lowLatency)
        let renditionList = running.context.renditions?.list ?? []
        let result: Result<Void, WHEPError>
        do {
            result = try await running.handler.eventLoop.submit { () -> Result<Void, WHEPError> in
                let handler = running.handler.value
                guard handler.viewerCount < configuration.maximumViewers else { return .failure(.tooManyViewers(limit: configuration.maximumViewers)) }
                if let client, handler.viewerCount(from: client.address) >= client.maximumViewers {
                    return .failure(.tooManyViewersFromAddress(client.address, limit: client.maximumViewers))
                }
                do {
                    let viewer = try WHEPViewer(id: id, localCredentials: credentials, session: session, dtlsContext: dtlsContext,
                                                configuration: configuration, media: media, renditions: renditionList, allocator: ByteBufferAllocator(),
                                                nowNanos: UInt64(MonotonicClock.nowNanos()), transmit: { [weak handler] in handler?.transmit($0, to: $1) })
                    handler.add(viewer, from: client?.address)
                    return .success(())
                } catch {
                    return .failure(.badOffer("\(error)"))
                }
            }.get()
        } catch {
            throw .notRunning
        }
        try result.get()
        if needsUprightPixels { rotatePixels?() }
        return (id, answer.sdp)
    }

    /// Ends a session (WHEP DELETE): close_notify to the viewer, resources freed.
    public func deleteSession(id: String) async throws(WHEPError) {
        guard let running = running.withLock({ $0 }) else { throw .notRunning }
        let removed = (try? await running.handler.eventLoop.submit { running.handler.value.remove(id: id) }.get()) ?? false
        guard removed else { throw .unknownSession(id) }
    }

    /// Host candidates: the configured addresses, else the bound one (0.0.0.0 → every IPv4 interface).
    private func candidateAddresses(bound: TransportAddress) -> [TransportAddress] {
        if !configuration.candidateAddresses.isEmpty {
            return configuration.candidateAddresses.compactMap { TransportAddress($0, bound.port) }
        }
        guard bound.ip.description == "0.0.0.0" else { return [bound] }
        return LocalIPv4Addresses.all().compactMap { TransportAddress($0, bound.port) }
    }
}
