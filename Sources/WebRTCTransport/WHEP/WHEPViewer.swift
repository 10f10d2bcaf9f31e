import Codec
import DTLS
import MediaCore
import NIOCore
import Output
import RTP
import RTPOutput
import WebRTC

/// One browser watching: ICE-lite, then the shared ``WebRTCPeer`` (DTLS, server for
/// `setup:passive` → SRTP → its own ``WebRTCMediaSender``: SSRCs, sequence numbers, NACK history,
/// reports) fed from the shared encode. Only SRTP protection and packetization are per viewer;
/// nothing is re-encoded.
///
/// With several renditions, the viewer forwards one of them at a time on its one video SSRC
/// (sequence numbers and RTP times continue across a switch), chosen from its own bandwidth
/// estimate by its ``RenditionSwitchPolicy``; with one, the estimate goes to the owner, which caps
/// the shared encoder.
///
/// Confined to the UDP channel's event loop (``WHEPUDPHandler`` owns it): every method runs there.
/// Inputs return what the owner must act on (``Signal``); bytes go out through `transmit`.
final class WHEPViewer {
    /// What the owner does after an input.
    enum Signal: Equatable {
        /// Route this remote address's non-STUN datagrams here (a check from it was valid).
        case bind(TransportAddress)
        /// Ask this rendition's encoder for an IDR (a viewer connected, PLI/FIR passed the limiter, or
        /// the viewer switches to it).
        case requestKeyFrame(rendition: Int)
        /// What the viewer's path carries (transport-cc estimate, else its REMB), when the stream has
        /// one rendition: the owner caps the shared encoder with it.
        case bitrateEstimate(bitsPerSecond: UInt64)
        /// The viewer is gone (consent expired, DTLS closed or failed, connect timeout).
        case closed(reason: String)
    }

    let id: String
    let localUfrag: String
    private var ice: ICELiteAgent
    /// DTLS → SRTP → media over the address the browser nominated.
    private let connection: WebRTCPeer<TransportAddress>
    /// Exists once DTLS exported the SRTP keys.
    private var media: WebRTCMediaSender? { connection.media }
    /// Where media goes: the address the browser nominated (or its DTLS came from before that).
    private var peer: TransportAddress? { connection.path }
    private let transmit: (ByteBuffer, TransportAddress) -> Void
    private let connectDeadlineNanos: UInt64
    private(set) var isClosed = false
    /// Whether the viewer takes the media, from its RTCP receiver reports (``ReceiverReportSampling``);
    /// a stalled viewer is closed. Consent freshness covers a viewer that stops answering altogether.
    private var health: DeliveryHealth
    private var sampling = ReceiverReportSampling()
    private var nextHealthCheckNanos: UInt64 = 0
    /// Which rendition this viewer gets (one rendition: always 0).
    private var renditions: RenditionSwitchPolicy
    private let renditionNames: [String]
    /// Its frames carry the playout-delay extension (it asked for low latency and offered it).
    let lowLatency: Bool
    /// The latest estimate and where it came from ("transport-cc", "remb").
    private var estimate: (bitsPerSecond: Int, source: String)?
    /// The capture time the last video frame went out with: a switch's key frame of the same
    /// instant goes one 90 kHz tick later, so the browser sees a new frame, never a repeated timestamp.
    private var lastSentPtsNanos: Int64?
    static let rtpTickNanos: Int64 = 11_112
    static let healthIntervalNanos: UInt64 = 500_000_000
    /// How a stalled viewer's close reason starts.
    static let stallReasonPrefix = "stalled: "

    /// `renditions` are the stream's (top first; empty or one: no switching), `media` the per-viewer
    /// sender configuration (its estimator starts at the top rendition).
    init(id: String, localCredentials: ICECredentials, session: NegotiatedSession,
         dtlsContext: DTLSContext, configuration: WHEPConfiguration, media: WebRTCMediaSender.Configuration,
         renditions: [RenditionDescription] = [], allocator: ByteBufferAllocator, nowNanos: UInt64,
         transmit: @escaping (ByteBuffer, TransportAddress) -> Void) throws {
        self.id = id
        localUfrag = localCredentials.ufrag
        ice = ICELiteAgent(localCredentials: localCredentials, remoteCredentials: session.remoteCredentials,
                           configuration: .init(consentTimeoutNanos: configuration.consentTimeoutNanos), nowNanos: nowNanos)
        connection = try WebRTCPeer(session: session, dtlsContext: dtlsContext,
                                    dtlsInitialRetransmitMillis: configuration.dtlsInitialRetransmitMillis, cname: "livepush-\(id)",
                                    media: media, allocator: allocator, transmit: transmit)
        // Up-switches wait for a probe's word when the viewer can be probed: transport-cc feedback
        // to measure it, RTX to carry the padding.
        var switching = configuration.renditionSwitching
        switching.upRequiresProbe = switching.upRequiresProbe
            || (session.video?.transportWideCCExtensionID != nil && session.video?.rtxPayloadType != nil && media.pacing != nil)
        self.renditions = RenditionSwitchPolicy(bitrates: renditions.map(\.bitrateBitsPerSecond), settings: switching)
        renditionNames = renditions.map(\.name)
        lowLatency = session.video?.playoutDelayExtensionID != nil
        self.transmit = transmit
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

    /// The estimate, rendition and switches, for status.
    func link(nowNanos: Int64) -> WebRTCViewerLink {
        var policy = renditions
        policy.accountTime(nowNanos: nowNanos)
        let media = mediaStatistics
        return WebRTCViewerLink(
            estimateSource: estimate?.source ?? "none", estimateBitsPerSecond: estimate?.bitsPerSecond,
            transportFeedbackReceived: media?.transportFeedbackReceived ?? 0, feedbackLossFraction: media?.feedbackLossFraction,
            rendition: policy.current, renditionName: renditionNames.indices.contains(policy.current) ? renditionNames[policy.current] : nil,
            renditionSwitches: policy.switches, secondsOnRendition: policy.nanosOnRendition.map { Double($0) / 1e9 },
            framesDroppedAtPacer: media?.framesDroppedAtPacer ?? 0, framesHeldAtPacer: media?.framesHeldAtPacer ?? 0,
            probesStarted: media?.probesStarted ?? 0, probesFailed: policy.probesFailed, lowLatency: lowLatency)
    }

    /// A datagram routed to this viewer, classified by its first byte (RFC 7983).
    func receive(_ datagram: ByteBuffer, from source: TransportAddress, nowNanos: UInt64) -> [Signal] {
        guard !isClosed else { return [] }
        switch RTPDemultiplexedPacketKind(datagram: datagram) {
        case .stun:
            return handleICE(ice.handle(.datagram(datagram, from: source, nowNanos: nowNanos)))
        case .dtls:
            return handleDTLS(connection.receiveDTLS(datagram, replyTo: source))
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
        signals += handleDTLS(connection.retransmitDTLSIfDue())
        if !isConnected && nowNanos >= connectDeadlineNanos && !isClosed {
            signals += close(reason: "ICE/DTLS did not complete in time")
        }
        if isConnected && !isClosed { media?.tick(nowNanos: Int64(nowNanos)) }
        if isConnected && !isClosed, let media, let bits = renditions.wantsProbe(nowNanos: Int64(nowNanos)) {
            media.startProbe(bitsPerSecond: bits, durationNanos: renditions.settings.probeDurationNanos, nowNanos: Int64(nowNanos))
        }
        if isConnected && !isClosed && nowNanos >= nextHealthCheckNanos { signals += judgeDelivery(nowNanos: nowNanos) }
        return signals
    }

    /// Sends one video frame of the shared encode, when it is of the rendition this viewer gets
    /// (or the key frame it switches at). Asks for a key frame when the viewer's pacer refused the
    /// frame (its queue was past the time bound): of the rendition the viewer is headed to. The
    /// payloads come from `sharing`, made once for all viewers.
    func send(_ frame: EncodedVideoFrame, sharing: inout H264PayloadSharing, nowNanos: Int64) -> [Signal] {
        let before = renditions.current
        guard isConnected, !isClosed,
              renditions.admits(rendition: frame.rendition, isKeyFrame: frame.isKeyFrame, ptsNanos: frame.ptsNanos,
                                sizeBytes: frame.data.count, nowNanos: nowNanos) else { return [] }
        if renditions.current != before { media?.sendRateChanged() }
        var frame = frame
        if let last = lastSentPtsNanos, frame.ptsNanos <= last { frame.ptsNanos = last + Self.rtpTickNanos }
        lastSentPtsNanos = frame.ptsNanos
        guard media?.send(frame, sharing: &sharing, nowNanos: nowNanos) == true else { return [] }
        return [.requestKeyFrame(rendition: renditions.target ?? renditions.current)]
    }

    /// Sends what the viewer's pacer allows now; returns when to call again (nil: nothing waits).
    func pace(nowNanos: Int64) -> Int64? {
        guard isConnected, !isClosed else { return nil }
        return media?.pace(nowNanos: nowNanos)
    }

    /// When the viewer's pacer wants to be called again (nil: nothing waits).
    func nextPacingNanos(nowNanos: Int64) -> Int64? {
        guard isConnected, !isClosed else { return nil }
        return media?.nextPacingNanos(nowNanos: nowNanos)
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
        connection.close(nowNanos: MonotonicClock.nowNanos())
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
                // setup:active answer: we open DTLS once the browser picked a path.
                signals += handleDTLS(connection.select(address))
            case .consentExpired: signals += close(reason: "ICE consent expired")
            case .dropped: break
            }
        }
        return signals
    }

    private func handleDTLS(_ events: [WebRTCPeer<TransportAddress>.Event]) -> [Signal] {
        var signals: [Signal] = []
        for event in events {
            switch event {
            case .connected:
                sampling.restart(media?.videoReceiverReports)
                health.connected(nowNanos: MonotonicClock.nowNanos())
                renditions.accountTime(nowNanos: MonotonicClock.nowNanos())
                signals.append(.requestKeyFrame(rendition: renditions.current))
            case .mediaSetupFailed(let reason):
                signals += close(reason: reason)
            case .dtlsClosed(.peerClosed):
                isClosed = true
                signals.append(.closed(reason: "DTLS close_notify"))
            case .dtlsClosed(.failed(let error)):
                isClosed = true
                signals.append(.closed(reason: "\(error)"))
            }
        }
        return signals
    }

    private func handleRTCP(_ datagram: ByteBuffer) -> [Signal] {
        guard let media else { return [] }
        let now = MonotonicClock.nowNanos()
        let feedback = media.receiveRTCP(datagram, nowNanos: now)
        var signals: [Signal] = feedback.requestKeyFrame ? [.requestKeyFrame(rendition: renditions.current)] : []
        // REMB is the fallback: with transport-cc the send-side estimate rules.
        let latest: (Int, String)? = if let bits = feedback.bandwidthEstimateBitsPerSecond {
            (bits, "transport-cc")
        } else if let bits = feedback.estimatedBitrateBitsPerSecond, !media.usesTransportWideCC {
            (Int(clamping: bits), "remb")
        } else {
            nil
        }
        if let probe = feedback.probeBitsPerSecond, let rendition = renditions.observe(probeBitsPerSecond: probe, nowNanos: now) {
            signals.append(.requestKeyFrame(rendition: rendition))
        }
        guard let (bits, source) = latest else { return signals }
        estimate = (bits, source)
        if renditions.bitrates.count > 1 {
            if let rendition = renditions.observe(estimateBitsPerSecond: bits, nowNanos: now) { signals.append(.requestKeyFrame(rendition: rendition)) }
        } else {
            signals.append(.bitrateEstimate(bitsPerSecond: UInt64(bits)))
        }
        return signals
    }
}
