import Codec
import DTLS
import MediaCore
import NIOCore
import Pipeline
import RTP
import RTPOutput
import SRTP
import WebRTC

/// One browser watching: ICE-lite → DTLS (server for `setup:passive`) → SRTP → its own
/// ``WebRTCMediaSender`` (SSRCs, sequence numbers, NACK history, reports) fed from the shared
/// encode. Only SRTP protection and packetization are per viewer; nothing is re-encoded.
///
/// Confined to the UDP channel's event loop (``WHEPUDPHandler`` owns it): every method runs there.
/// Inputs return what the owner must act on (``Signal``); bytes go out through `transmit`.
final class WHEPViewer {
    /// What the owner does after an input.
    enum Signal: Equatable {
        /// Route this remote address's non-STUN datagrams here (a check from it was valid).
        case bind(TransportAddress)
        /// Ask the encoder for an IDR (a viewer connected, or PLI/FIR passed the limiter).
        case requestKeyFrame
        /// The viewer's REMB estimate of what its path carries.
        case bitrateEstimate(bitsPerSecond: UInt64)
        /// The viewer is gone (consent expired, DTLS closed or failed, connect timeout).
        case closed(reason: String)
    }

    let id: String
    let localUfrag: String
    private var ice: ICELiteAgent
    private let dtls: DTLSEndpoint
    private let session: NegotiatedSession
    private let mediaConfiguration: WebRTCMediaSender.Configuration
    /// Exists once DTLS exported the SRTP keys.
    private var media: WebRTCMediaSender?
    /// Where media goes: the address the browser nominated.
    private var peer: TransportAddress?
    private let transmit: (ByteBuffer, TransportAddress) -> Void
    private let allocator: ByteBufferAllocator
    private let connectDeadlineNanos: UInt64
    private(set) var isClosed = false
    /// Whether the viewer takes the media, from its RTCP receiver reports (``ReceiverReportSampling``);
    /// a stalled viewer is closed. Consent freshness covers a viewer that stops answering altogether.
    private var health: DeliveryHealth
    private var sampling = ReceiverReportSampling()
    private var nextHealthCheckNanos: UInt64 = 0
    static let healthIntervalNanos: UInt64 = 500_000_000
    /// How a stalled viewer's close reason starts.
    static let stallReasonPrefix = "stalled: "

    init(id: String, localCredentials: ICECredentials, session: NegotiatedSession,
         dtlsContext: DTLSContext, configuration: WHEPConfiguration, allocator: ByteBufferAllocator, nowNanos: UInt64,
         transmit: @escaping (ByteBuffer, TransportAddress) -> Void) throws {
        self.id = id
        localUfrag = localCredentials.ufrag
        ice = ICELiteAgent(localCredentials: localCredentials, remoteCredentials: session.remoteCredentials,
                           configuration: .init(consentTimeoutNanos: configuration.consentTimeoutNanos), nowNanos: nowNanos)
        let fingerprint = try DTLS.DTLSFingerprint(sdpFingerprint: session.remoteFingerprint)
        dtls = try DTLSEndpoint(context: dtlsContext, role: session.dtlsRole == .client ? .client : .server,
                                remoteFingerprint: fingerprint, initialRetransmitMillis: configuration.dtlsInitialRetransmitMillis)
        self.session = session
        mediaConfiguration = configuration.mediaSender
        self.transmit = transmit
        self.allocator = allocator
        connectDeadlineNanos = nowNanos + configuration.connectTimeoutNanos
        health = DeliveryHealth(settings: .init(stallTimeoutSeconds: configuration.stallTimeoutSeconds),
                                evidence: ReceiverReportSampling.receiverReportEvidence)
    }

    /// healthy, degraded or stalled once media flows; nil before.
    var deliveryState: DeliveryHealth.State? { isConnected ? health.state : nil }

    var isConnected: Bool { media != nil && peer != nil }
    /// The video stream's counters (zero before DTLS completes).
    var statistics: RTPSenderStatistics { media?.statistics.video ?? RTPSenderStatistics() }
    /// The audio stream's counters, when the viewer negotiated Opus and DTLS completed.
    var audioStatistics: RTPSenderStatistics? { media?.statistics.audio }
    var mediaStatistics: WebRTCMediaSender.Statistics? { media?.statistics }

    /// A datagram routed to this viewer, classified by its first byte (RFC 7983).
    func receive(_ datagram: ByteBuffer, from source: TransportAddress, nowNanos: UInt64) -> [Signal] {
        guard !isClosed else { return [] }
        switch RTPDemultiplexedPacketKind(datagram: datagram) {
        case .stun:
            return handleICE(ice.handle(.datagram(datagram, from: source, nowNanos: nowNanos)))
        case .dtls:
            return handleDTLS(dtls.receive(Array(datagram.readableBytesView)), to: source)
        case .rtcp:
            return handleRTCP(datagram)
        default:
            return []
        }
    }

    /// Timers: DTLS retransmission, consent freshness, connect timeout, Sender Reports.
    func tick(nowNanos: UInt64) -> [Signal] {
        guard !isClosed else { return [] }
        var signals = handleICE(ice.handle(.tick(nowNanos: nowNanos)))
        if let delay = dtls.retransmitDelayNanos, delay <= 0, let peer {
            signals += handleDTLS(dtls.handleTimeout(), to: peer)
        }
        if !isConnected && nowNanos >= connectDeadlineNanos && !isClosed {
            signals += close(reason: "ICE/DTLS did not complete in time")
        }
        if isConnected && !isClosed { media?.tick(nowNanos: Int64(nowNanos)) }
        if isConnected && !isClosed && nowNanos >= nextHealthCheckNanos { signals += judgeDelivery(nowNanos: nowNanos) }
        return signals
    }

    /// Sends one video frame of the shared encode.
    func send(_ frame: EncodedVideoFrame, nowNanos: Int64) {
        guard isConnected, !isClosed else { return }
        media?.send(frame, nowNanos: nowNanos)
    }

    /// Sends one Opus frame (when the viewer negotiated audio).
    func send(_ frame: EncodedAudioFrame, nowNanos: Int64) {
        guard isConnected, !isClosed else { return }
        media?.send(frame, nowNanos: nowNanos)
    }

    /// Ends the viewer: BYE and close_notify when connected.
    @discardableResult
    func close(reason: String) -> [Signal] {
        guard !isClosed else { return [] }
        if isConnected { media?.close(nowNanos: MonotonicClock.nowNanos()) }
        if let peer { dtls.close().forEach { transmit(allocator.buffer(bytes: $0), peer) } }
        isClosed = true
        return [.closed(reason: reason)]
    }

    /// One sample of the viewer's receiver reports; a stall closes the viewer, naming the evidence.
    private func judgeDelivery(nowNanos: UInt64) -> [Signal] {
        nextHealthCheckNanos = nowNanos + Self.healthIntervalNanos
        guard let ledger = media?.videoReceiverReports else { return [] }
        let sample = sampling.sample(ledger, nowNanos: Int64(nowNanos), framesDropped: 0)
        guard health.observe(sample) == .stalled else { return [] }
        return close(reason: Self.stallReasonPrefix + health.stallDescription)
    }

    // MARK: - Protocol layers

    private func handleICE(_ actions: [ICELiteAgent.Action]) -> [Signal] {
        var signals: [Signal] = []
        for action in actions {
            switch action {
            case .send(let bytes, let address): transmit(bytes, address)
            case .validated(let address): signals.append(.bind(address))
            case .selected(let address):
                let first = peer == nil
                peer = address
                // setup:active answer: we open DTLS once the browser picked a path.
                if first && dtls.role == .client { signals += handleDTLS(dtls.start(), to: address) }
            case .consentExpired: signals += close(reason: "ICE consent expired")
            case .dropped: break
            }
        }
        return signals
    }

    private func handleDTLS(_ output: DTLSOutput, to address: TransportAddress) -> [Signal] {
        // DTLS may start before USE-CANDIDATE: answer where the flight came from.
        if peer == nil { peer = address }
        for datagram in output.datagrams { transmit(allocator.buffer(bytes: datagram), address) }
        var signals: [Signal] = []
        for event in output.events {
            switch event {
            case .connected(let keys):
                do {
                    let srtp = try SRTPSession.directions(keyedBy: keys)
                    media = try WebRTCMediaSender(session: session, outbound: srtp.outbound, inbound: srtp.inbound, cname: "livepush-\(id)",
                                                  configuration: mediaConfiguration, allocator: allocator) { [weak self] datagram in
                        guard let self, let peer = self.peer else { return }
                        self.transmit(datagram, peer)
                    }
                    sampling.restart(media?.videoReceiverReports)
                    health.connected(nowNanos: MonotonicClock.nowNanos())
                    signals.append(.requestKeyFrame)
                } catch {
                    signals += close(reason: "SRTP setup failed: \(error)")
                }
            case .applicationData: break
            case .closed(.peerClosed):
                isClosed = true
                signals.append(.closed(reason: "DTLS close_notify"))
            case .closed(.failed(let error)):
                isClosed = true
                signals.append(.closed(reason: "\(error)"))
            }
        }
        return signals
    }

    private func handleRTCP(_ datagram: ByteBuffer) -> [Signal] {
        guard let media else { return [] }
        let feedback = media.receiveRTCP(datagram, nowNanos: MonotonicClock.nowNanos())
        var signals: [Signal] = feedback.requestKeyFrame ? [.requestKeyFrame] : []
        if let estimate = feedback.estimatedBitrateBitsPerSecond { signals.append(.bitrateEstimate(bitsPerSecond: estimate)) }
        return signals
    }
}
