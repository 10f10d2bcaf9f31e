import Foundation
import Testing
import TestSupport
@testable import DTLS

/// DTLSEndpoint against OpenSSL's own command-line DTLS peers (`openssl s_server` / `s_client`
/// with `-use_srtp`), over real UDP on 127.0.0.1. The peers print the RFC 5764 exporter output
/// (`-keymatexport EXTRACTOR-dtls_srtp -keymatexportlen 60`), which must equal our split keys.
@Suite(.serialized) struct OpenSSLInteropTests {
    /// A P-256 key and self-signed certificate made by the openssl tool, and its SHA-256 fingerprint.
    struct PeerCertificate {
        let directory: TemporaryDirectory
        let fingerprint: DTLSFingerprint
        var certificatePath: String { directory.file("cert.pem") }
        var keyPath: String { directory.file("key.pem") }

        init() throws {
            directory = try TemporaryDirectory()
            try ExternalTool.run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                             "-subj", "/CN=peer", "-days", "1",
                                             "-keyout", directory.file("key.pem"), "-out", directory.file("cert.pem")], timeoutSeconds: 20)
            let printed = try ExternalTool.run("openssl", ["x509", "-noout", "-fingerprint", "-sha256", "-in", directory.file("cert.pem")],
                                               timeoutSeconds: 20).output
            // "sha256 Fingerprint=AB:CD:…" (the label's spelling varies between versions).
            let hex = try #require(printed.split(separator: "=").last).trimmingCharacters(in: .whitespacesAndNewlines)
            fingerprint = try DTLSFingerprint(sdpValue: "sha-256 \(hex)")
        }
    }

    static let srtpArguments = ["-dtls1_2", "-use_srtp", "SRTP_AES128_CM_SHA1_80",
                                "-keymatexport", "EXTRACTOR-dtls_srtp", "-keymatexportlen", "60"]

    /// Exchanges datagrams between `endpoint` and the peer at `peerPort` (or, for a server, whoever
    /// sends first) until connected (bounded); returns the events and the peer's port.
    func handshake(_ endpoint: DTLSEndpoint, over socket: LoopbackUDPSocket, peerPort: Int?, start: Bool) -> (events: [DTLSEvent], peerPort: Int?) {
        var events: [DTLSEvent] = []
        var peer = peerPort
        func apply(_ output: DTLSOutput) {
            if let peer { output.datagrams.forEach { socket.send($0, toPort: peer) } }
            events += output.events
        }
        if start { apply(endpoint.start()) }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && endpoint.state == .handshaking {
            if let datagram = socket.receive(timeoutSeconds: 0.05) {
                peer = datagram.port
                apply(endpoint.receive(datagram.bytes))
            } else if let delay = endpoint.retransmitDelayNanos, delay <= 0 {
                apply(endpoint.handleTimeout())
            }
        }
        return (events, peer)
    }

    /// The hex after "Keying material: " in a peer's output.
    func keyingMaterial(in output: String) -> String? {
        guard let line = output.split(separator: "\n").first(where: { $0.contains("Keying material:") }) else { return nil }
        return line.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces).uppercased() }
    }

    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined() }

    @Test
    func clientAgainstOpenSSLServer() throws {
        try ExternalTool.require("openssl")
        let peer = try PeerCertificate()
        let port = try LoopbackUDPSocket().port // a free port for the server (closed again at once)
        // stdin stays open (sleep) so s_server does not quit at EOF before the handshake.
        let server = try BackgroundProcess("sh", ["-c", "sleep 10 | timeout -k 2 20 openssl s_server -accept 127.0.0.1:\(port) "
                                                    + "-cert \(peer.certificatePath) -key \(peer.keyPath) -verify 1 -naccept 1 "
                                                    + Self.srtpArguments.joined(separator: " ")])
        Thread.sleep(forTimeInterval: 0.3)
        let socketToServer = try LoopbackUDPSocket()
        let context = try DTLSContext(certificate: DTLSCertificate())
        let client = try DTLSEndpoint(context: context, role: .client, remoteFingerprint: peer.fingerprint, initialRetransmitMillis: 200)
        let events = handshake(client, over: socketToServer, peerPort: port, start: true).events
        let keys = try #require(events.keys, "events \(events), s_server: \(server.output) \(server.errorOutput)")
        client.close().forEach { socketToServer.send($0, toPort: port) }
        _ = server.wait(timeoutSeconds: 5)
        server.kill(signal: SIGTERM)
        let exported = try #require(keyingMaterial(in: server.output + server.errorOutput), "s_server: \(server.output)")
        // client_key ‖ server_key ‖ client_salt ‖ server_salt, with us as the client.
        #expect(exported == hex(keys.localMasterKey + keys.remoteMasterKey + keys.localMasterSalt + keys.remoteMasterSalt))
    }

    @Test
    func serverAgainstOpenSSLClient() throws {
        try ExternalTool.require("openssl")
        let peer = try PeerCertificate()
        let socket = try LoopbackUDPSocket()
        let context = try DTLSContext(certificate: DTLSCertificate())
        let server = try DTLSEndpoint(context: context, role: .server, remoteFingerprint: peer.fingerprint, initialRetransmitMillis: 200)
        let client = try BackgroundProcess("sh", ["-c", "sleep 3 | timeout -k 2 20 openssl s_client -connect 127.0.0.1:\(socket.port) "
                                                    + "-cert \(peer.certificatePath) -key \(peer.keyPath) "
                                                    + Self.srtpArguments.joined(separator: " ")])
        let events = handshake(server, over: socket, peerPort: nil, start: true).events
        let keys = try #require(events.keys, "events \(events), s_client: \(client.output) \(client.errorOutput)")
        _ = client.wait(timeoutSeconds: 8)
        client.kill(signal: SIGTERM)
        let exported = try #require(keyingMaterial(in: client.output), "s_client: \(client.output)")
        #expect(exported == hex(keys.remoteMasterKey + keys.localMasterKey + keys.remoteMasterSalt + keys.localMasterSalt))
        #expect(client.output.contains("SRTP_AES128_CM_SHA1_80"))
    }
}
