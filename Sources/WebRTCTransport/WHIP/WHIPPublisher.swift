import Codec
import DTLS
import Logging
import MediaCore
import NIOCore
import NIOPosix
import Output
import RTPOutput
import WebRTC

/// Runs a ``WHIPSession`` (the shared connection lifecycle) on one event loop: performs its actions (HTTP requests, the
/// peer connection, timers) and feeds their results back. Each session gets a new
/// ``WHIPPeerConnection``; reports from an older one are ignored.
final class WHIPPublisher {
    /// What the output shows; published after every change.
    struct Snapshot: Sendable {
        var state: OutputStatus.State = .starting
        var sessionsConnected = 0
        var lastError: String?
        /// Whether the server takes the video, from its RTCP receiver reports (WHIPPublisher+Health.swift).
        var health: DeliveryHealth
    }

    let eventLoop: EventLoop
    private let configuration: WHIPOutputConfiguration
    private let http: WHIPHTTPClient
    private let dtlsContext: DTLSContext
    let logger: Logger
    private let publish: (Snapshot) -> Void
    private let requestKeyFrame: @Sendable () -> Void
    private(set) var machine: WHIPSession<SystemRandomNumberGenerator>
    private(set) var peer: WHIPPeerConnection?
    /// From the last session's `Link` headers (IP literals): srflx gathering for the next ones.
    private var stunServers: [TransportAddress] = []
    /// Increments per peer, so late reports from a discarded one are recognized.
    private var generation = 0
    private var retryTimer: Scheduled<Void>?
    private var stopPromise: EventLoopPromise<Void>?
    private let settings: WHIPPeerConnection.Settings
    /// How long the offer waits for STUN answers (a lost one costs only its srflx candidate).
    static let gatheringTimeout = TimeAmount.milliseconds(300)
    private(set) var framesSent = 0
    /// Frames not written while the socket was backed up, and the delta frames after them.
    private(set) var socketGate = SocketBacklogGate()
    /// Media bytes of the sessions already closed, so the total survives them.
    private var bytesSentBefore: Int64 = 0
    /// Delivery health and what it needs between samples (WHIPPublisher+Health.swift).
    var health: DeliveryHealth
    var healthSampling = ReceiverReportSampling()
    private var healthTask: RepeatedTask?
    /// The last session `Location` the bearer token was withheld from (said once per place).
    private var tokenWithheldFrom: WHIPURL?

    init(configuration: WHIPOutputConfiguration, eventLoop: EventLoop, dtlsContext: DTLSContext, capabilities: SenderCapabilities,
         logger: Logger, requestKeyFrame: @escaping @Sendable () -> Void, publish: @escaping (Snapshot) -> Void) {
        self.configuration = configuration
        self.eventLoop = eventLoop
        self.dtlsContext = dtlsContext
        self.logger = logger
        self.requestKeyFrame = requestKeyFrame
        self.publish = publish
        http = WHIPHTTPClient(timeoutSeconds: configuration.requestTimeoutSeconds, caCertificatesPath: configuration.caCertificatesPath)
        machine = WHIPSession(reconnect: configuration.reconnect, random: SystemRandomNumberGenerator())
        health = DeliveryHealth(settings: .init(stallTimeoutSeconds: configuration.stallTimeoutSeconds), evidence: ReceiverReportSampling.receiverReportEvidence)
        settings = WHIPPeerConnection.Settings(
            capabilities: capabilities, connectTimeoutNanos: UInt64(configuration.connectTimeoutSeconds * 1e9),
            consentTimeoutNanos: UInt64(configuration.consentTimeoutSeconds * 1e9), dtlsInitialRetransmitMillis: 1000,
            media: configuration.media)
    }

    func start() {
        let this = NIOLoopBound(self, eventLoop: eventLoop)
        healthTask = eventLoop.scheduleRepeatedTask(initialDelay: Self.healthInterval, delay: Self.healthInterval) { _ in
            this.value.judgeDelivery(nowNanos: MonotonicClock.nowNanos())
        }
        handle(.start)
    }

    /// Deletes the session (bounded by the request timeout) and closes everything.
    /// Completes `promise` once stopped; a second stop waits for the first, a late one returns at once.
    func stop(_ promise: EventLoopPromise<Void>) {
        switch machine.state {
        case .stopped:
            promise.succeed()
        case .stopping:
            if let stopPromise { stopPromise.futureResult.cascade(to: promise) } else { promise.succeed() }
        default:
            stopPromise = promise
            handle(.stop)
        }
    }

    /// Sends one frame, unless the socket's backlog is past its limit: then the frame is dropped
    /// and delta frames wait for a key frame (``SocketBacklogGate``).
    func send(_ frame: EncodedVideoFrame) {
        guard let peer, socketGate.admits(frame, socketWritable: peer.isSocketWritable, requestKeyFrame: requestKeyFrame) else { return }
        let sent = peer.send(frame)
        if sent.taken { framesSent += 1 }
        if sent.wantsKeyFrame { requestKeyFrame() }
    }

    func send(_ frame: EncodedAudioFrame) { peer?.send(frame) }

    var bytesSent: Int64 { bytesSentBefore + Self.bytesSent(by: peer) }

    private static func bytesSent(by peer: WHIPPeerConnection?) -> Int64 {
        let statistics = peer?.media?.statistics
        return (statistics?.video?.bytesSent ?? 0) + (statistics?.audio?.bytesSent ?? 0)
    }

    // MARK: - The session's actions

    func handle(_ event: WHIPSession<SystemRandomNumberGenerator>.Event) {
        let before = machine.state
        let actions = machine.handle(event)
        noteDelivery(from: before, to: machine.state, after: event)
        for action in actions { perform(action) }
        publishSnapshot()
    }

    private func perform(_ action: WHIPSession<SystemRandomNumberGenerator>.Action) {
        switch action {
        case .post:
            openSession()
        case .connectMedia(let resource):
            let servers = resource.iceServers.compactMap { $0.stunAddress.flatMap { TransportAddress($0.host, UInt16($0.port)) } }
            if servers != stunServers {
                stunServers = servers
                logger.info("ICE servers for the next sessions' srflx candidates", metadata: [
                    "stun": "\(servers.map(\.description).joined(separator: " "))",
                    "ignored": "\(resource.iceServers.count - servers.count) (TURN, stuns: or host names)",
                ])
            }
            do throws(WHIPError) {
                try peer?.accept(answer: resource.answer, nowNanos: UInt64(MonotonicClock.nowNanos()))
            } catch {
                handle(.mediaFailed(error))
            }
        case .requestICERestart(let resource):
            guard let peer else { return }
            logger.warning("ICE consent lost; trying an ICE restart")
            let current = generation
            let request = WHIPExchange.iceRestart(peer.restartFragment(), of: resource, bearerToken: bearerToken(for: resource.url))
            http.send(request, on: eventLoop).assumeIsolated().flatMapThrowing { response in
                try WHIPExchange.interpretRestart(response, resourceURL: resource.url)
            }.whenComplete { [self] result in
                guard current == generation else { return }
                switch result {
                case .success(let outcome): handle(.restartAnswered(outcome))
                case .failure(let error): handle(.restartFailed(Self.whipError(error)))
                }
            }
        case .restartMedia(let fragment):
            peer?.applyRestart(fragment, nowNanos: UInt64(MonotonicClock.nowNanos()))
        case .discard(let resource):
            closePeer()
            if let resource {
                http.send(WHIPExchange.delete(resource, bearerToken: bearerToken(for: resource.url)), on: eventLoop).whenComplete { _ in }
            }
        case .scheduleRetry(let seconds):
            if let error = machine.lastError {
                logger.warning("session lost; new session soon", metadata: ["error": "\(error)", "in": "\(String(format: "%.2f", seconds)) s"])
            }
            retryTimer = eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) { [self] in handle(.retryDue) }
        case .delete(let resource):
            retryTimer?.cancel()
            closePeer()
            http.send(WHIPExchange.delete(resource, bearerToken: bearerToken(for: resource.url)), on: eventLoop).assumeIsolated().whenComplete { [self] result in
                if case .success(let response) = result {
                    logger.info("session deleted", metadata: ["status": "\(response.status)"])
                }
                handle(.deleted)
            }
        case .finished:
            retryTimer?.cancel()
            healthTask?.cancel()
            closePeer()
            stopPromise?.succeed()
            stopPromise = nil
        case .fail(let error):
            logger.error("giving up on this WHIP output", metadata: ["error": "\(error)"])
        }
    }

    /// A new peer: sockets, offer, POST (following redirects).
    private func openSession() {
        closePeer()
        generation += 1
        let current = generation
        let peer = WHIPPeerConnection(eventLoop: eventLoop, settings: settings, dtlsContext: dtlsContext) { [weak self] signal in
            guard let self, current == self.generation else { return }
            self.peerSignal(signal)
        }
        self.peer = peer
        logger.info("opening a WHIP session")
        peer.bind(addresses: localAddresses()).assumeIsolated().flatMap { [self] () -> EventLoopFuture<Void> in
            peer.gather(stunServers: stunServers, timeout: Self.gatheringTimeout)
        }.flatMap { [self] () -> EventLoopFuture<WHIPSessionResource> in
            post(peer.makeOffer(), to: configuration.endpoint, redirects: 0)
        }.whenComplete { [self] result in
            guard current == generation else { return }
            switch result {
            case .success(let resource):
                logger.info("WHIP session created", metadata: ["resource": "\(resource.url.redacted)"])
                handle(.created(resource))
            case .failure(let error):
                handle(.postFailed(Self.whipError(error)))
            }
        }
    }

    private func post(_ offer: String, to url: WHIPURL, redirects: Int) -> EventLoopFuture<WHIPSessionResource> {
        http.send(WHIPExchange.offer(offer, to: url, bearerToken: bearerToken(for: url)), on: eventLoop).assumeIsolated().flatMap { [self] response in
            do {
                switch try WHIPExchange.interpretOffer(response, requestURL: url, redirectsFollowed: redirects,
                                                       maximumRedirects: configuration.maximumRedirects) {
                case .created(let resource):
                    return eventLoop.makeSucceededFuture(resource)
                case .redirect(let next):
                    let origin = configuration.endpoint
                    if let refusal = configuration.followRedirects.refusal(from: .init(usesTLS: origin.isTLS, host: origin.host),
                                                                          to: .init(usesTLS: next.isTLS, host: next.host)) {
                        logger.warning("not following the redirect: \(refusal)", metadata: ["status": "\(response.status)", "to": "\(next.redacted)"])
                        throw WHIPError.redirectRefused(to: next.redacted, reason: refusal)
                    }
                    logger.info("redirected", metadata: ["status": "\(response.status)", "to": "\(next.redacted)"])
                    return post(offer, to: next, redirects: redirects + 1)
                }
            } catch {
                return eventLoop.makeFailedFuture(error)
            }
        }.nonisolated()
    }

    /// The bearer token for a request to `url`, withheld (and said so, once per place) where
    /// `follow_redirects` does not let it go from the configured endpoint: a session `Location` on
    /// another host, or on plain http after https. DELETE and PATCH go there without it.
    private func bearerToken(for url: WHIPURL) -> String? {
        let (token, refusal) = configuration.bearerToken(for: url)
        if let refusal, tokenWithheldFrom != url {
            tokenWithheldFrom = url
            logger.warning("not sending the bearer token to the session's Location: \(refusal)", metadata: ["location": "\(url.redacted)"])
        }
        return token
    }

    private func peerSignal(_ signal: WHIPPeerConnection.Signal) {
        switch signal {
        case .connected:
            logger.info("media connected")
            handle(.mediaConnected)
        case .failed(let error):
            handle(.mediaFailed(error))
        case .requestKeyFrame:
            requestKeyFrame()
        }
    }

    private func closePeer() {
        bytesSentBefore += Self.bytesSent(by: peer)
        peer?.close()
        peer = nil
    }

    /// The configured addresses, else every IPv4 interface address.
    private func localAddresses() -> [String] {
        guard configuration.localAddresses.isEmpty else { return configuration.localAddresses }
        let addresses = LocalIPv4Addresses.all()
        return addresses.isEmpty ? ["127.0.0.1"] : addresses
    }

    func publishSnapshot() {
        var snapshot = Snapshot(sessionsConnected: machine.sessionsConnected, lastError: machine.lastError?.description, health: health)
        switch machine.state {
        case .idle: snapshot.state = .starting
        case .connecting: snapshot.state = machine.sessionsConnected == 0 && machine.lastError == nil ? .connecting : .reconnecting
        case .live: snapshot.state = .running
        case .repairing, .waiting, .awaitingReplacement: snapshot.state = .reconnecting
        case .stopping, .stopped: snapshot.state = .stopped
        case .failed: snapshot.state = .failed
        }
        publish(snapshot)
    }

    private static func whipError(_ error: any Error) -> WHIPError {
        (error as? WHIPError) ?? .connectionClosed(method: "\(error)")
    }
}
