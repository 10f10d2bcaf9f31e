import Codec
import DTLS
import MediaCore
import NIOCore
import RTP
import RTPOutput
import SRTP
import WebRTC

/// One browser watching: ICE-lite → DTLS (server for `setup:passive`) → SRTP → its own H.264 RTP
/// sender (SSRC, sequence numbers, NACK history) fed from the shared encode. Only SRTP protection
/// and packetization are per viewer; nothing is re-encoded.
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
        /// The viewer is gone (consent expired, DTLS closed or failed, connect timeout).
        case closed(reason: String)
    }

    let id: String
    let localUfrag: String
    private var ice: ICELiteAgent
    private let dtls: DTLSEndpoint
    private var sender: RTPSenderSession
    private var outbound: SRTPSession?
    private var inbound: SRTPSession?
    /// Where media goes: the address the browser nominated.
    private var peer: TransportAddress?
    private let transmit: (ByteBuffer, TransportAddress) -> Void
    private let allocator: ByteBufferAllocator
    private let wallClock = WallClockMapping.sampleNow()
    private let connectDeadlineNanos: UInt64
    private let senderReportIntervalNanos: Int64
    private var lastSenderReportNanos: Int64 = 0
    /// A decoder starts at an IDR: frames before the first one after connecting are skipped.
    private var awaitingKeyFrame = true
    private(set) var isClosed = false

    init(id: String, localCredentials: ICECredentials, session: NegotiatedSession, video: NegotiatedVideo,
         dtlsContext: DTLSContext, configuration: WHEPConfiguration, allocator: ByteBufferAllocator, nowNanos: UInt64,
         transmit: @escaping (ByteBuffer, TransportAddress) -> Void) throws {
        self.id = id
        localUfrag = localCredentials.ufrag
        ice = ICELiteAgent(localCredentials: localCredentials, remoteCredentials: session.remoteCredentials,
                           configuration: .init(consentTimeoutNanos: configuration.consentTimeoutNanos), nowNanos: nowNanos)
        let fingerprint = try DTLS.DTLSFingerprint(sdpFingerprint: session.remoteFingerprint)
        dtls = try DTLSEndpoint(context: dtlsContext, role: session.dtlsRole == .client ? .client : .server,
                                remoteFingerprint: fingerprint, initialRetransmitMillis: configuration.dtlsInitialRetransmitMillis)
        var generator = SystemRandomNumberGenerator()
        let packetizer = try RTPPacketizer(ssrc: video.ssrc, payloadType: video.payloadType,
                                           payloader: try H264Payloader(maxPayloadSize: configuration.maxPayloadSize, allocator: allocator),
                                           using: &generator)
        sender = RTPSenderSession(packetizer: packetizer, cname: "livepush-\(id)")
        self.transmit = transmit
        self.allocator = allocator
        connectDeadlineNanos = nowNanos + configuration.connectTimeoutNanos
        senderReportIntervalNanos = configuration.senderReportIntervalNanos
    }

    var isConnected: Bool { outbound != nil && peer != nil }
    var statistics: RTPSenderStatistics { sender.statistics }

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
        let now = Int64(nowNanos)
        if isConnected && sender.statistics.packetsSent > 0 && now - lastSenderReportNanos >= senderReportIntervalNanos {
            lastSenderReportNanos = now
            if let report = try? sender.senderReport(monotonicNanos: now, wallClock: wallClock) { sendRTCP(report) }
        }
        return signals
    }

    /// Packetizes, protects and sends one frame of the shared encode.
    func send(_ frame: EncodedVideoFrame, nowNanos: Int64) {
        guard isConnected, !isClosed else { return }
        if awaitingKeyFrame {
            guard frame.isKeyFrame else { return }
            awaitingKeyFrame = false
        }
        do {
            try sendRTP(try sender.packets(for: frame, allocator: allocator, monotonicNanos: nowNanos))
        } catch {
            sender.record(error: error)
        }
    }

    /// Ends the viewer: BYE and close_notify when connected.
    @discardableResult
    func close(reason: String) -> [Signal] {
        guard !isClosed else { return [] }
        if isConnected, let bye = try? sender.goodbye(monotonicNanos: MonotonicClock.nowNanos(), wallClock: wallClock) {
            sendRTCP(bye)
        }
        if let peer { dtls.close().forEach { transmit(allocator.buffer(bytes: $0), peer) } }
        isClosed = true
        return [.closed(reason: reason)]
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
                    outbound = try SRTPSession(keyingMaterial: SRTPKeyingMaterial(masterKey: keys.localMasterKey, masterSalt: keys.localMasterSalt), role: .sender)
                    inbound = try SRTPSession(keyingMaterial: SRTPKeyingMaterial(masterKey: keys.remoteMasterKey, masterSalt: keys.remoteMasterSalt), role: .receiver)
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
        guard let inbound else { return [] }
        var packet = datagram
        do {
            try inbound.unprotectRTCP(&packet)
            let compound = try RTCPCompoundPacket(from: &packet)
            let response = sender.handle(compound, monotonicNanos: MonotonicClock.nowNanos(), wallClock: wallClock)
            if !response.retransmissions.isEmpty { try sendRTP(response.retransmissions) }
            return response.requestKeyFrame ? [.requestKeyFrame] : []
        } catch {
            sender.recordDroppedRTCP()
            return []
        }
    }

    private func sendRTP(_ packets: [RTPPacket]) throws(SRTPError) {
        guard let outbound, let peer else { return }
        for packet in packets {
            var buffer = allocator.buffer(capacity: packet.encodedSize + SRTPSession.maxRTPTrailerSize)
            packet.write(to: &buffer)
            try outbound.protect(rtp: &buffer)
            sender.record(bytesSent: buffer.readableBytes)
            transmit(buffer, peer)
        }
    }

    private func sendRTCP(_ compound: RTCPCompoundPacket) {
        guard let outbound, let peer else { return }
        var buffer = allocator.buffer(capacity: compound.encodedSize + SRTPSession.maxRTCPTrailerSize)
        compound.write(to: &buffer)
        guard (try? outbound.protectRTCP(&buffer)) != nil else { return }
        transmit(buffer, peer)
    }
}
