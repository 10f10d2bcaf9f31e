import Codec
import DTLS
import MediaCore
import NIOCore
import NIOPosix
import RTP
import RTPOutput
import WebRTC

/// The WHIP client's side of one WebRTC session: a UDP socket per local address (host
/// candidates), full ICE as the controlling agent (USE-CANDIDATE, consent freshness), then the
/// shared ``WebRTCPeer``: DTLS in the role the answer gave us with the server's fingerprint
/// checked, SRTP media through the ``WebRTCMediaSender`` (NACK/RTX, PLI/FIR, reports).
///
/// Confined to one event loop (the publisher's): every method runs there. What the owner must act
/// on comes back through `signal`.
final class WHIPPeerConnection {
    enum Signal: Equatable {
        /// ICE and DTLS are up (again, after an ICE restart): media flows.
        case connected
        case failed(WHIPError)
        /// A new session or the server's PLI/FIR: ask the encoder for an IDR.
        case requestKeyFrame
    }

    struct Settings: Sendable {
        var capabilities: SenderCapabilities
        var connectTimeoutNanos: UInt64
        var consentTimeoutNanos: UInt64
        var dtlsInitialRetransmitMillis: UInt32
        var media: WebRTCMediaSender.Configuration
    }

    static let tickInterval = TimeAmount.milliseconds(20)
    /// The socket media leaves from and where it goes.
    private typealias Path = (local: TransportAddress, remote: TransportAddress)

    let eventLoop: EventLoop
    private let settings: Settings
    private let dtlsContext: DTLSContext
    private let signal: (Signal) -> Void
    private let allocator = ByteBufferAllocator()
    private(set) var localCredentials = ICECredentials.random()
    private let sources: LocalSources
    private var channels: [TransportAddress: Channel] = [:]
    private var offer: SessionDescription?
    private var agent: ICEControllingAgent<SystemRandomNumberGenerator>?
    private var session: NegotiatedSession?
    /// DTLS → SRTP → media, once the answer is accepted.
    private var connection: WebRTCPeer<Path>?
    var media: WebRTCMediaSender? { connection?.media }
    /// Where media goes: the nominated pair, or where the server's DTLS came from before that.
    private var path: Path? { connection?.path }
    private var connectDeadlineNanos: UInt64 = .max
    private var reflexive = ServerReflexiveGathering()
    private var gathered: EventLoopPromise<Void>?
    private var tickTask: RepeatedTask?
    private(set) var isClosed = false

    init(eventLoop: EventLoop, settings: Settings, dtlsContext: DTLSContext, signal: @escaping (Signal) -> Void) {
        self.eventLoop = eventLoop
        self.settings = settings
        self.dtlsContext = dtlsContext
        self.signal = signal
        var generator = SystemRandomNumberGenerator()
        sources = LocalSources(videoSSRC: .random(in: 1 ... .max, using: &generator), videoRTXSSRC: .random(in: 1 ... .max, using: &generator),
                               audioSSRC: .random(in: 1 ... .max, using: &generator),
                               cname: "livepush-\(String(UInt64.random(in: .min ... .max, using: &generator), radix: 36))")
    }

    /// Binds one UDP socket (any port) per local address; each becomes a host candidate.
    func bind(addresses: [String]) -> EventLoopFuture<Void> {
        let this = NIOLoopBound(self, eventLoop: eventLoop)
        let binds = addresses.map { address in
            DatagramBootstrap(group: eventLoop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(WHIPDatagramHandler { datagram, remote, local in
                            this.value.receive(datagram, from: remote, to: local)
                        })
                    }
                }
                .bind(host: address, port: 0)
        }
        return EventLoopFuture.whenAllComplete(binds, on: eventLoop).flatMapThrowing { results in
            for case .success(let channel) in results {
                guard let local = channel.localAddress.flatMap(TransportAddress.init(socketAddress:)) else { continue }
                this.value.channels[local] = channel
            }
            guard !this.value.channels.isEmpty else {
                let reasons = results.compactMap { if case .failure(let error) = $0 { "\(error)" } else { nil } }
                throw WHIPError.socketFailed("no usable local address (\(addresses.joined(separator: ", "))): \(reasons.joined(separator: "; "))")
            }
            this.value.tickTask = this.value.eventLoop.scheduleRepeatedTask(initialDelay: Self.tickInterval, delay: Self.tickInterval) { _ in
                this.value.tick()
            }
        }
    }

    /// Host candidates, most preferred first (the order of the addresses given to ``bind(addresses:)``
    /// is lost in the dictionary, so loopback goes last: a real interface is the likelier path).
    private var localCandidates: [ICECandidate] {
        func rank(_ address: TransportAddress) -> (Int, String) { (address.ip.description.hasPrefix("127.") ? 1 : 0, address.description) }
        let addresses = channels.keys.sorted { rank($0) < rank($1) }
        return addresses.enumerated().map { index, address in
            ICECandidate.host(address, foundation: "\(index + 1)", localPreference: UInt16(65535 - index))
        }
    }

    /// Asks each STUN server (IP literals, from an earlier answer's `Link` headers) for our
    /// server-reflexive addresses; completes when all answered or after `timeout`.
    func gather(stunServers: [TransportAddress], timeout: TimeAmount) -> EventLoopFuture<Void> {
        var generator = SystemRandomNumberGenerator()
        let requests = reflexive.start(bases: Array(channels.keys), servers: stunServers, using: &generator)
        guard !requests.isEmpty else { return eventLoop.makeSucceededVoidFuture() }
        for request in requests { transmit(request.bytes, from: request.from, to: request.to) }
        flush()
        let promise = eventLoop.makePromise(of: Void.self)
        gathered = promise
        eventLoop.scheduleTask(in: timeout) { promise.succeed() }
        return promise.futureResult
    }

    /// What the offer and an ICE restart announce: host candidates, then server-reflexive ones
    /// (those share the host sockets, so the agent pairs only the hosts).
    private var announcedCandidates: [ICECandidate] { localCandidates + reflexive.candidates }

    /// The SDP offer (RFC 9725 §4.2): sendonly, every codec we can send, our candidates.
    func makeOffer() -> String {
        let transport = LocalTransportParameters(credentials: localCredentials, fingerprint: dtlsContext.certificate.fingerprint,
                                                 candidates: announcedCandidates, iceLite: false)
        let description = WebRTCOfferer(capabilities: settings.capabilities, sources: sources)
            .offer(transport: transport, sessionID: .random(in: 1 ... UInt64(Int64.max)))
        offer = description
        return description.sdp
    }

    /// Applies the server's answer: ICE checks toward its candidates start, DTLS waits for a path.
    func accept(answer text: String, nowNanos: UInt64) throws(WHIPError) {
        guard let offer else { throw .badAnswer("no offer was made") }
        let negotiated: NegotiatedSession
        let connection: WebRTCPeer<Path>
        do {
            let answer = try SessionDescription(parsing: text)
            negotiated = try WebRTCOfferer(capabilities: settings.capabilities, sources: sources).process(answer: answer, to: offer)
            connection = try WebRTCPeer(session: negotiated, dtlsContext: dtlsContext,
                                        dtlsInitialRetransmitMillis: settings.dtlsInitialRetransmitMillis, cname: sources.cname,
                                        media: settings.media, allocator: allocator) { [weak self] buffer, path in
                self?.transmit(buffer, from: path.local, to: path.remote)
            }
        } catch {
            throw .badAnswer("\(error)")
        }
        guard negotiated.video != nil else { throw .badAnswer("the server rejected the video section") }
        guard negotiated.remoteCandidates.contains(where: { $0.transportAddress != nil }) else {
            throw .badAnswer("the answer has no IP candidate (trickle-only servers are not supported)")
        }
        session = negotiated
        self.connection = connection
        var configuration = ICEControllingAgent<SystemRandomNumberGenerator>.Configuration()
        configuration.consentTimeoutNanos = settings.consentTimeoutNanos
        configuration.consentIntervalNanos = min(configuration.consentIntervalNanos, settings.consentTimeoutNanos / 4)
        var agent = ICEControllingAgent(local: localCredentials, localCandidates: localCandidates, remote: negotiated.remoteCredentials,
                                        remoteCandidates: negotiated.remoteCandidates, configuration: configuration,
                                        random: SystemRandomNumberGenerator())
        connectDeadlineNanos = nowNanos + settings.connectTimeoutNanos
        let actions = agent.handle(.start(nowNanos: nowNanos))
        self.agent = agent
        handleICE(actions)
    }

    /// New local credentials for an ICE restart; the fragment to PATCH (RFC 9725 §4.4.1).
    func restartFragment() -> WHIPICERestartFragment {
        localCredentials = ICECredentials.random()
        return WHIPICERestartFragment(credentials: localCredentials, mid: session?.bundleMids.first ?? WebRTCOfferer.videoMid,
                                      candidates: announcedCandidates)
    }

    /// The server's restart answer: checks start again with both new credentials; DTLS and SRTP carry on.
    func applyRestart(_ fragment: WHIPICERestartFragment, nowNanos: UInt64) {
        guard var agent else { return }
        agent.restart(local: localCredentials, remote: fragment.credentials, remoteCandidates: fragment.candidates)
        connectDeadlineNanos = nowNanos + settings.connectTimeoutNanos
        let actions = agent.handle(.start(nowNanos: nowNanos))
        self.agent = agent
        handleICE(actions)
    }

    /// Whether the socket media leaves from can take more: its backlog in the process is under
    /// NIO's high-water mark (true before a path is chosen).
    var isSocketWritable: Bool { path.flatMap { channels[$0.local] }?.isWritable ?? true }

    /// One frame of the shared encode (skipped until media is up): whether the media sender took it,
    /// and whether it asks for a key frame (its pacer dropped frames and the stream waits for one).
    func send(_ frame: EncodedVideoFrame) -> (taken: Bool, wantsKeyFrame: Bool) {
        guard let media, path != nil, !isClosed else { return (false, false) }
        return (true, media.send(frame, nowNanos: MonotonicClock.nowNanos()))
    }

    func send(_ frame: EncodedAudioFrame) {
        guard let media, path != nil, !isClosed else { return }
        media.send(frame, nowNanos: MonotonicClock.nowNanos())
    }

    /// BYE, close_notify, and the sockets closed; no further signals.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        tickTask?.cancel()
        connection?.close(nowNanos: MonotonicClock.nowNanos())
        for channel in channels.values { channel.close(promise: nil) }
    }

    // MARK: - Input

    private func receive(_ datagram: ByteBuffer, from remote: TransportAddress, to local: TransportAddress) {
        guard !isClosed else { return }
        switch RTPDemultiplexedPacketKind(datagram: datagram) {
        case .stun:
            if !reflexive.isComplete, reflexive.receive(datagram, from: remote) {
                if reflexive.isComplete { gathered?.succeed() }
                return
            }
            guard var agent else { return }
            let actions = agent.handle(.datagram(datagram, from: remote, to: local, nowNanos: UInt64(MonotonicClock.nowNanos())))
            self.agent = agent
            handleICE(actions)
        case .dtls:
            guard let connection else { return }
            // The server (DTLS client) may start before our nomination: answer where it came from.
            handleDTLS(connection.receiveDTLS(datagram, replyTo: connection.path ?? (local, remote)))
        case .rtcp:
            guard let media else { return }
            if media.receiveRTCP(datagram, nowNanos: MonotonicClock.nowNanos()).requestKeyFrame { signal(.requestKeyFrame) }
        default:
            break
        }
        flush()
    }

    private func tick() {
        guard !isClosed else { return }
        let now = UInt64(MonotonicClock.nowNanos())
        if var agent, let deadline = agent.nextDeadlineNanos, deadline <= now {
            let actions = agent.handle(.tick(nowNanos: now))
            self.agent = agent
            handleICE(actions)
        }
        if let connection { handleDTLS(connection.retransmitDTLSIfDue()) }
        if !isClosed, now >= connectDeadlineNanos {
            connectDeadlineNanos = .max
            fail(.mediaConnectFailed("ICE and DTLS did not complete within \(settings.connectTimeoutNanos / 1_000_000_000) s"))
        }
        media?.tick(nowNanos: Int64(now))
        flush()
    }

    private func handleICE(_ actions: [ICEControllingAgent<SystemRandomNumberGenerator>.Action]) {
        for action in actions where !isClosed {
            switch action {
            case .send(let bytes, let from, let to):
                transmit(bytes, from: from, to: to)
            case .connected(let pair):
                guard let connection else { break }
                let restarted = connection.media != nil
                handleDTLS(connection.select((pair.local, pair.remote)))
                if restarted {
                    // An ICE restart completed: DTLS and SRTP carry on over the new path.
                    connectDeadlineNanos = .max
                    signal(.connected)
                }
            case .failed:
                fail(.mediaConnectFailed("every ICE candidate pair failed"))
            case .consentLost:
                fail(.consentLost)
            case .dropped:
                break
            }
        }
    }

    private func handleDTLS(_ events: [WebRTCPeer<Path>.Event]) {
        for event in events where !isClosed {
            switch event {
            case .connected:
                connectDeadlineNanos = .max
                signal(.connected)
                signal(.requestKeyFrame)
            case .mediaSetupFailed(let reason):
                fail(.dtlsClosed(reason))
            case .dtlsClosed(.peerClosed):
                fail(.dtlsClosed("close_notify"))
            case .dtlsClosed(.failed(let error)):
                fail(.dtlsClosed("\(error)"))
            }
        }
    }

    private func fail(_ error: WHIPError) {
        guard !isClosed else { return }
        signal(.failed(error))
    }

    private func transmit(_ buffer: ByteBuffer, from local: TransportAddress, to remote: TransportAddress) {
        guard let channel = channels[local], let address = try? remote.socketAddress else { return }
        channel.write(AddressedEnvelope(remoteAddress: address, data: buffer), promise: nil)
    }

    private func flush() {
        for channel in channels.values { channel.flush() }
    }
}

/// One local socket's datagrams, to the peer connection with the local address they arrived on.
private final class WHIPDatagramHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let receive: (ByteBuffer, TransportAddress, TransportAddress) -> Void
    private var local: TransportAddress?

    init(receive: @escaping (ByteBuffer, TransportAddress, TransportAddress) -> Void) {
        self.receive = receive
    }

    func channelActive(context: ChannelHandlerContext) {
        local = context.channel.localAddress.flatMap(TransportAddress.init(socketAddress:))
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard let local, let remote = TransportAddress(socketAddress: envelope.remoteAddress) else { return }
        receive(envelope.data, remote, local)
    }

    /// ICMP errors from a vanished server: consent freshness notices the loss.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}
