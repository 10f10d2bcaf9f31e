import DTLS
import NIOCore
import RTPOutput
import SRTP
import WebRTC

/// The part of a WebRTC peer connection WHEP's viewer and WHIP's client share: once ICE has a
/// path, DTLS runs over it in the role the offer/answer settled, the peer's certificate checked
/// against its SDP fingerprint; the exported keys make SRTP, and SRTP carries one
/// ``WebRTCMediaSender``.
///
/// It owns no socket and no timer. The owner runs its ICE agent (ICE-lite for WHEP, the
/// controlling agent for WHIP) and feeds the result in: the path ICE chose (``select(_:)``), DTLS
/// datagrams (``receiveDTLS(_:replyTo:)``), and its ticks (``retransmitDTLSIfDue()``). Datagrams go
/// out through `transmit` with the path to send them on; what the owner must act on comes back as
/// ``Event``s. `Path` is whatever the owner sends on: a remote address (WHEP's one socket) or a
/// local and remote pair (WHIP's socket per host candidate).
///
/// Confined to its owner's event loop, like the DTLS endpoint and the media sender it holds.
final class WebRTCPeer<Path> {
    enum Event: Equatable {
        /// DTLS completed and SRTP is keyed: ``media`` exists and media may flow.
        case connected
        /// DTLS ended: the peer's close_notify, or a failed handshake or connection.
        case dtlsClosed(DTLSCloseReason)
        /// DTLS completed but its keys made no SRTP session or media sender (the reason in words).
        case mediaSetupFailed(String)
    }

    private let dtls: DTLSEndpoint
    private let session: NegotiatedSession
    private let cname: String
    private let mediaConfiguration: WebRTCMediaSender.Configuration
    private let allocator: ByteBufferAllocator
    private let transmit: (ByteBuffer, Path) -> Void
    /// Where media goes: the path ICE chose, or where the peer's DTLS came from before that.
    private(set) var path: Path?
    /// Exists once DTLS exported the SRTP keys.
    private(set) var media: WebRTCMediaSender?
    /// Whether we (as DTLS client) sent the first flight.
    private var handshakeOpened = false

    /// Throws when the session's fingerprint is not one DTLS can check, or OpenSSL fails to set up.
    init(session: NegotiatedSession, dtlsContext: DTLSContext, dtlsInitialRetransmitMillis: UInt32, cname: String,
         media: WebRTCMediaSender.Configuration, allocator: ByteBufferAllocator,
         transmit: @escaping (ByteBuffer, Path) -> Void) throws(DTLSError) {
        dtls = try DTLSEndpoint(context: dtlsContext, role: session.dtlsRole,
                                remoteFingerprint: session.remoteFingerprint, initialRetransmitMillis: dtlsInitialRetransmitMillis)
        self.session = session
        self.cname = cname
        mediaConfiguration = media
        self.allocator = allocator
        self.transmit = transmit
    }

    /// ICE chose `path` (first, or again after a restart): media follows it. As the DTLS client we
    /// open the handshake on the first path.
    func select(_ path: Path) -> [Event] {
        self.path = path
        guard dtls.role == .client, dtls.state == .handshaking, !handshakeOpened else { return [] }
        handshakeOpened = true
        return handle(dtls.start(), to: path)
    }

    /// One DTLS datagram from the peer; its answer goes to `replyTo`. DTLS may start before ICE
    /// chose a path (the peer as DTLS client): `replyTo` is then the path.
    func receiveDTLS(_ datagram: ByteBuffer, replyTo: Path) -> [Event] {
        if path == nil { path = replyTo }
        return handle(dtls.receive(Array(datagram.readableBytesView)), to: replyTo)
    }

    /// Retransmits the handshake's last flight when its timer ran out (call from the owner's tick).
    func retransmitDTLSIfDue() -> [Event] {
        guard let path, let delay = dtls.retransmitDelayNanos, delay <= 0 else { return [] }
        return handle(dtls.handleTimeout(), to: path)
    }

    /// RTCP BYE when media flowed, then close_notify on the path (when there is one).
    func close(nowNanos: Int64) {
        media?.close(nowNanos: nowNanos)
        guard let path else { return }
        for datagram in dtls.close() { transmit(allocator.buffer(bytes: datagram), path) }
    }

    private func handle(_ output: DTLSOutput, to path: Path) -> [Event] {
        for datagram in output.datagrams { transmit(allocator.buffer(bytes: datagram), path) }
        return output.events.compactMap { event in
            switch event {
            case .connected(let keys): startMedia(keys)
            case .applicationData: nil
            case .closed(let reason): .dtlsClosed(reason)
            }
        }
    }

    private func startMedia(_ keys: DTLSSRTPKeys) -> Event {
        do {
            let srtp = try SRTPSession.directions(keyedBy: keys)
            media = try WebRTCMediaSender(session: session, outbound: srtp.outbound, inbound: srtp.inbound, cname: cname,
                                          configuration: mediaConfiguration, allocator: allocator) { [weak self] datagram in
                guard let self, let path = self.path else { return }
                self.transmit(datagram, path)
            }
            return .connected
        } catch {
            return .mediaSetupFailed("SRTP setup failed: \(error)")
        }
    }
}
