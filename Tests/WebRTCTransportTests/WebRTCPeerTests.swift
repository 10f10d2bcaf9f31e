import DTLS
import NIOCore
import RTP
import Testing
@testable import WebRTC
@testable import WebRTCTransport

/// The peer WHEP and WHIP share, without sockets or ICE: two of them, one per DTLS role, hand each
/// other their datagrams by the path names they were sent on.
@Suite struct WebRTCPeerTests {
    final class Wire {
        var queue: [(datagram: ByteBuffer, path: String)] = []
    }

    struct Pair {
        let client: WebRTCPeer<String>
        let server: WebRTCPeer<String>
        let wire: Wire
        var clientEvents: [WebRTCPeer<String>.Event] = []
        var serverEvents: [WebRTCPeer<String>.Event] = []

        /// Delivers the DTLS on the wire until it is empty: "to-server" goes to the server, which
        /// answers "to-client", and the other way round. SRTP and SRTCP (an RTCP BYE) are dropped.
        mutating func run() {
            while !wire.queue.isEmpty {
                let (datagram, path) = wire.queue.removeFirst()
                guard RTPDemultiplexedPacketKind(datagram: datagram) == .dtls else { continue }
                if path == "to-server" {
                    serverEvents += server.receiveDTLS(datagram, replyTo: "to-client")
                } else {
                    clientEvents += client.receiveDTLS(datagram, replyTo: "to-server")
                }
            }
        }
    }

    static let clientContext = Result { try DTLSContext(certificate: DTLSCertificate()) }
    static let serverContext = Result { try DTLSContext(certificate: DTLSCertificate()) }

    static func session(role: DTLSRole, expecting fingerprint: DTLSFingerprint) -> NegotiatedSession {
        var session = WebRTCMediaSenderTests.session(rtx: false, orientationID: nil, audio: false)
        session.dtlsRole = role
        session.remoteFingerprint = fingerprint
        return session
    }

    static func pair(serverExpects: DTLSFingerprint? = nil) throws -> Pair {
        let clientContext = try clientContext.get(), serverContext = try serverContext.get()
        let wire = Wire()
        let client = try WebRTCPeer<String>(
            session: session(role: .client, expecting: serverContext.certificate.fingerprint), dtlsContext: clientContext,
            dtlsInitialRetransmitMillis: 1000, cname: "client", media: .init(), allocator: ByteBufferAllocator()) { wire.queue.append(($0, $1)) }
        let server = try WebRTCPeer<String>(
            session: session(role: .server, expecting: serverExpects ?? clientContext.certificate.fingerprint), dtlsContext: serverContext,
            dtlsInitialRetransmitMillis: 1000, cname: "server", media: .init(), allocator: ByteBufferAllocator()) { wire.queue.append(($0, $1)) }
        return Pair(client: client, server: server, wire: wire)
    }

    @Test func theClientOpensOnTheFirstPathAndBothSidesKeyMedia() throws {
        var pair = try Self.pair()
        #expect(pair.server.select("to-client").isEmpty)
        #expect(pair.wire.queue.isEmpty, "a DTLS server waits for the ClientHello")
        pair.clientEvents += pair.client.select("to-server")
        #expect(pair.wire.queue.map(\.path) == ["to-server"])
        pair.run()
        #expect(pair.clientEvents == [.connected])
        #expect(pair.serverEvents == [.connected])
        #expect(pair.client.media != nil && pair.server.media != nil)
        // A later path (an ICE restart) moves media but opens nothing again.
        #expect(pair.client.select("to-server").isEmpty)
        #expect(pair.wire.queue.isEmpty)
    }

    @Test func dtlsBeforeAPathAnswersWhereItCameFrom() throws {
        var pair = try Self.pair()
        pair.clientEvents += pair.client.select("to-server")
        #expect(pair.server.path == nil)
        pair.run()
        #expect(pair.server.path == "to-client")
    }

    @Test func aCertificateOtherThanTheAnnouncedOneEndsDTLS() throws {
        var pair = try Self.pair(serverExpects: try DTLSCertificate().fingerprint)
        pair.clientEvents += pair.client.select("to-server")
        pair.run()
        #expect(pair.server.media == nil)
        guard case .dtlsClosed(.failed(.fingerprintMismatch)) = pair.serverEvents.first else {
            Issue.record("expected a fingerprint mismatch, got \(pair.serverEvents)")
            return
        }
    }

    @Test func aHashDTLSCannotCheckIsRefused() throws {
        let md5 = try DTLSFingerprint(sdp: Substring("md5 " + Array(repeating: "AB", count: 16).joined(separator: ":")))
        #expect(md5.algorithm == nil)
        #expect(throws: DTLSError.unsupportedFingerprintAlgorithm("md5")) {
            try WebRTCPeer<String>(session: Self.session(role: .server, expecting: md5), dtlsContext: try Self.serverContext.get(),
                                   dtlsInitialRetransmitMillis: 1000, cname: "server", media: .init(), allocator: ByteBufferAllocator()) { _, _ in }
        }
    }

    @Test func closeSendsCloseNotifyOnThePathOnly() throws {
        let unconnected = try Self.pair()
        unconnected.server.close(nowNanos: 0)
        #expect(unconnected.wire.queue.isEmpty, "no path: nothing to send on")
        var pair = try Self.pair()
        pair.clientEvents += pair.client.select("to-server")
        pair.run()
        pair.client.close(nowNanos: 0)
        #expect(!pair.wire.queue.isEmpty && pair.wire.queue.allSatisfy { $0.path == "to-server" })
        pair.run()
        #expect(pair.serverEvents.last == .dtlsClosed(.peerClosed))
    }
}
