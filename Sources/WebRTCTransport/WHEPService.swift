import Codec
import DTLS
import MediaCore
import NIOCore
import NIOPosix
import Pipeline
import Synchronization
import WebRTC

/// The built-in WHEP endpoint (RFC 9725 for egress, draft-ietf-wish-whep): browsers POST an SDP
/// offer and watch the shared encode over WebRTC. One UDP port serves every viewer (ICE-lite,
/// DTLS-SRTP, RTCP muxed); a viewer costs packetization and SRTP protection, never an encode.
///
/// As a ``StreamOutput`` it receives the encoder's frames: the encoder thread only enqueues
/// (bounded by `queueCapacity`; overflow drops the frame, counts it and asks for a key frame);
/// the UDP event loop fans each frame out to the viewers it owns. HTTP routes come from
/// ``WHEPRoutes`` (or ``createSession(offer:)``/``deleteSession(id:)`` for another server).
public final class WHEPService: StreamOutput {
    public let configuration: WHEPConfiguration
    private let dtlsContext: DTLSContext
    private let capabilities: SenderCapabilities
    private struct Running {
        let handler: NIOLoopBound<WHEPUDPHandler>
        let localAddress: TransportAddress
        let requestKeyFrame: @Sendable () -> Void
    }
    private let running = Mutex<Running?>(nil)
    private let statistics = Mutex(WHEPStatistics())
    private let pendingFrames = Atomic<Int>(0)
    private let droppedFrames = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    public init(configuration: WHEPConfiguration) throws(DTLSError) {
        self.configuration = configuration
        dtlsContext = try DTLSContext(certificate: DTLSCertificate())
        // What the sender implements per viewer: H.264 with NACK (plain retransmission), PLI/FIR, REMB.
        capabilities = SenderCapabilities(opus: false, rtx: false, videoOrientation: false, transportWideCC: false,
                                          feedback: [.nack, .pictureLossIndication, .fullIntraRequest, .receiverEstimatedMaximumBitrate])
    }

    public var name: String { "whep" + (udpAddress.map { " (udp \($0))" } ?? "") }

    /// The UDP address media flows on, once started.
    public var udpAddress: TransportAddress? { running.withLock { $0?.localAddress } }

    public var whepStatistics: WHEPStatistics {
        var latest = statistics.withLock { $0 }
        latest.framesDropped = droppedFrames.load(ordering: .relaxed)
        return latest
    }

    /// Binds the shared UDP port.
    public func start(requestKeyFrame: @escaping @Sendable () -> Void) async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let publish: @Sendable (WHEPStatistics) -> Void = { [weak self] latest in self?.statistics.withLock { $0 = latest } }
        let handler = try await loop.submit {
            NIOLoopBound(WHEPUDPHandler(requestKeyFrame: requestKeyFrame, publish: publish), eventLoop: loop)
        }.get()
        let channel: Channel
        do {
            channel = try await DatagramBootstrap(group: loop)
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
        running.withLock { $0 = Running(handler: handler, localAddress: bound, requestKeyFrame: requestKeyFrame) }
    }

    public func onEncodedFrame(_ frame: EncodedVideoFrame) {
        guard !stopped.load(ordering: .relaxed), let running = running.withLock({ $0 }) else { return }
        guard pendingFrames.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue <= configuration.queueCapacity else {
            pendingFrames.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            droppedFrames.wrappingAdd(1, ordering: .relaxed)
            running.requestKeyFrame()
            return
        }
        running.handler.eventLoop.execute {
            running.handler.value.broadcast(frame)
            self.pendingFrames.wrappingSubtract(1, ordering: .acquiringAndReleasing)
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
    }

    public var status: OutputStatus {
        let latest = whepStatistics
        var status = OutputStatus(state: stopped.load(ordering: .relaxed) ? .stopped : udpAddress == nil ? .starting : .running)
        status.framesSent = latest.framesBroadcast
        status.framesDropped = latest.framesDropped
        status.bytesSent = latest.bytesSent
        status.lastError = latest.lastError
        return status
    }

    /// Answers a viewer's SDP offer: a new session id and the SDP answer (ICE-lite, our host
    /// candidate, DTLS fingerprint, `setup:passive`, H.264 as the offer allows).
    public func createSession(offer: String) async throws(WHEPError) -> (id: String, answer: String) {
        guard let running = running.withLock({ $0 }), !stopped.load(ordering: .relaxed) else { throw .notRunning }
        let parsed: SessionDescription
        do { parsed = try SessionDescription(parsing: offer) } catch { throw .badOffer("\(error)") }
        var generator = SystemRandomNumberGenerator()
        let id = String(UInt64.random(in: .min ... .max, using: &generator), radix: 36)
        let credentials = ICECredentials.random(using: &generator)
        let candidates = candidateAddresses(bound: running.localAddress).map { ICECandidate.host($0) }
        let answerer = WebRTCAnswerer(
            capabilities: capabilities,
            sources: LocalSources(videoSSRC: .random(in: 1 ... .max, using: &generator), videoRTXSSRC: .random(in: 1 ... .max, using: &generator),
                                  audioSSRC: .random(in: 1 ... .max, using: &generator), cname: "livepush-\(id)"),
            transport: LocalTransportParameters(credentials: credentials, fingerprint: dtlsContext.certificate.fingerprint.sdpFingerprint,
                                                candidates: candidates, iceLite: true))
        let answer: SessionDescription, session: NegotiatedSession
        do {
            (answer, session) = try answerer.answer(parsed, sessionID: .random(in: 1 ... UInt64(Int64.max), using: &generator))
        } catch {
            throw .badOffer("\(error)")
        }
        guard let video = session.video else { throw .badOffer("no H.264 video section we can send") }
        let (configuration, dtlsContext) = (self.configuration, self.dtlsContext)
        let result: Result<Void, WHEPError>
        do {
            result = try await running.handler.eventLoop.submit { () -> Result<Void, WHEPError> in
                let handler = running.handler.value
                guard handler.viewerCount < configuration.maximumViewers else { return .failure(.tooManyViewers(limit: configuration.maximumViewers)) }
                do {
                    let viewer = try WHEPViewer(id: id, localCredentials: credentials, session: session, video: video, dtlsContext: dtlsContext,
                                                configuration: configuration, allocator: ByteBufferAllocator(),
                                                nowNanos: UInt64(MonotonicClock.nowNanos()), transmit: { [weak handler] in handler?.transmit($0, to: $1) })
                    handler.add(viewer)
                    return .success(())
                } catch {
                    return .failure(.badOffer("\(error)"))
                }
            }.get()
        } catch {
            throw .notRunning
        }
        try result.get()
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
        let interfaces = (try? System.enumerateDevices()) ?? []
        let addresses = interfaces.compactMap { $0.address?.ipAddress }.filter { !$0.contains(":") }
        return Array(Set(addresses)).sorted().compactMap { TransportAddress($0, bound.port) }
    }
}
