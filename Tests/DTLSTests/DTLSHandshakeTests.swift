import Foundation
import Testing
@testable import DTLS

/// Two endpoints talking through in-memory datagrams, with optional loss, driven like an event
/// loop would: deliver what is queued, and when nothing is, wait for the earliest retransmit timer.
final class DTLSPair {
    let client: DTLSEndpoint
    let server: DTLSEndpoint
    var clientEvents: [DTLSEvent] = []
    var serverEvents: [DTLSEvent] = []
    /// Datagram indices (per direction, counted from 0) that the link loses.
    var dropToServer: Set<Int> = []
    var dropToClient: Set<Int> = []
    private(set) var sentToServer = 0
    private(set) var sentToClient = 0
    private var toServer: [[UInt8]] = []
    private var toClient: [[UInt8]] = []

    init(clientContext: DTLSContext, serverContext: DTLSContext,
         clientExpects: DTLSFingerprint? = nil, serverExpects: DTLSFingerprint? = nil) throws {
        client = try DTLSEndpoint(context: clientContext, role: .client,
                                  remoteFingerprint: clientExpects ?? serverContext.certificate.fingerprint,
                                  initialRetransmitMillis: 20)
        server = try DTLSEndpoint(context: serverContext, role: .server,
                                  remoteFingerprint: serverExpects ?? clientContext.certificate.fingerprint,
                                  initialRetransmitMillis: 20)
    }

    private func queue(_ output: DTLSOutput, fromClient: Bool) {
        for datagram in output.datagrams {
            if fromClient {
                if !dropToServer.contains(sentToServer) { toServer.append(datagram) }
                sentToServer += 1
            } else {
                if !dropToClient.contains(sentToClient) { toClient.append(datagram) }
                sentToClient += 1
            }
        }
        if fromClient { clientEvents += output.events } else { serverEvents += output.events }
    }

    /// Runs until both sides are done handshaking (or `rounds` deliveries/timeouts pass).
    func run(rounds: Int = 400) {
        queue(server.start(), fromClient: false)
        queue(client.start(), fromClient: true)
        for _ in 0..<rounds {
            if !toServer.isEmpty {
                queue(server.receive(toServer.removeFirst()), fromClient: false)
            } else if !toClient.isEmpty {
                queue(client.receive(toClient.removeFirst()), fromClient: true)
            } else {
                let delays = [client.retransmitDelayNanos, server.retransmitDelayNanos].compactMap { $0 }
                guard let wait = delays.min() else { return }
                Thread.sleep(forTimeInterval: Double(max(wait, 0)) / 1e9 + 0.001)
                queue(client.handleTimeout(), fromClient: true)
                queue(server.handleTimeout(), fromClient: false)
            }
        }
    }

    /// Delivers datagrams already queued (after a close) without starting anything.
    func deliver() {
        while !toServer.isEmpty || !toClient.isEmpty {
            if !toServer.isEmpty { queue(server.receive(toServer.removeFirst()), fromClient: false) }
            if !toClient.isEmpty { queue(client.receive(toClient.removeFirst()), fromClient: true) }
        }
    }

    func send(_ datagrams: [[UInt8]], fromClient: Bool) { queue(DTLSOutput(datagrams: datagrams), fromClient: fromClient) }
}

extension [DTLSEvent] {
    var keys: DTLSSRTPKeys? {
        for case .connected(let keys) in self { return keys }
        return nil
    }

    var closeReason: DTLSCloseReason? {
        for case .closed(let reason) in self { return reason }
        return nil
    }
}

@Suite struct DTLSHandshakeTests {
    static let clientContext = Result { try DTLSContext(certificate: DTLSCertificate()) }
    static let serverContext = Result { try DTLSContext(certificate: DTLSCertificate()) }

    func pair(clientExpects: DTLSFingerprint? = nil, serverExpects: DTLSFingerprint? = nil) throws -> DTLSPair {
        try DTLSPair(clientContext: Self.clientContext.get(), serverContext: Self.serverContext.get(),
                     clientExpects: clientExpects, serverExpects: serverExpects)
    }

    @Test func handshakeExportsCrosswiseKeys() throws {
        let pair = try pair()
        pair.run()
        let clientKeys = try #require(pair.clientEvents.keys)
        let serverKeys = try #require(pair.serverEvents.keys)
        #expect(clientKeys.localMasterKey == serverKeys.remoteMasterKey)
        #expect(clientKeys.localMasterSalt == serverKeys.remoteMasterSalt)
        #expect(serverKeys.localMasterKey == clientKeys.remoteMasterKey)
        #expect(serverKeys.localMasterSalt == clientKeys.remoteMasterSalt)
        #expect(clientKeys.localMasterKey != clientKeys.remoteMasterKey)
        #expect(pair.client.state == .connected && pair.server.state == .connected)
        #expect(pair.client.retransmitDelayNanos == nil)
    }

    @Test func freshKeysEveryConnection() throws {
        let first = try pair(), second = try pair()
        first.run()
        second.run()
        #expect(try #require(first.clientEvents.keys) != (try #require(second.clientEvents.keys)))
    }

    @Test func datagramsFitTheMTU() throws {
        let pair = try pair()
        pair.run()
        #expect(pair.sentToServer >= 2 && pair.sentToClient >= 1)
        let context = try Self.clientContext.get()
        let client = try DTLSEndpoint(context: context, role: .client, remoteFingerprint: context.certificate.fingerprint, mtu: 300)
        #expect(client.start().datagrams.allSatisfy { $0.count <= 300 })
    }

    @Test func serverRejectsAClientWhoseCertificateDoesNotMatch() throws {
        let wrong = try DTLSCertificate().fingerprint
        let pair = try pair(serverExpects: wrong)
        pair.run()
        guard case .failed(.fingerprintMismatch(let expected, let actual)) = pair.serverEvents.closeReason else {
            Issue.record("server events: \(pair.serverEvents)")
            return
        }
        #expect(expected == wrong.hexValue)
        #expect(actual == (try Self.clientContext.get().certificate.fingerprint.hexValue))
        #expect(pair.serverEvents.keys == nil)
        // The server's bad_certificate alert ends the client too, without keys.
        #expect(pair.clientEvents.keys == nil)
        #expect(pair.clientEvents.closeReason != nil)
    }

    @Test func clientRejectsAServerWhoseCertificateDoesNotMatch() throws {
        let pair = try pair(clientExpects: try DTLSCertificate().fingerprint)
        pair.run()
        guard case .failed(.fingerprintMismatch) = pair.clientEvents.closeReason else {
            Issue.record("client events: \(pair.clientEvents)")
            return
        }
        #expect(pair.clientEvents.keys == nil && pair.serverEvents.keys == nil)
    }

    @Test(arguments: [
        (Set([0]), Set<Int>()), // ClientHello lost
        (Set<Int>(), Set([0])), // first server flight datagram lost
        (Set([1, 2]), Set<Int>()), // client's second flight lost
        (Set<Int>(), Set([1, 2, 3])), // server's final flight lost: client retransmits, server answers
    ])
    func lostDatagramsRecoverThroughRetransmission(toServer: Set<Int>, toClient: Set<Int>) throws {
        let pair = try pair()
        pair.dropToServer = toServer
        pair.dropToClient = toClient
        pair.run()
        let clientKeys = try #require(pair.clientEvents.keys, "client: \(pair.clientEvents)")
        let serverKeys = try #require(pair.serverEvents.keys, "server: \(pair.serverEvents)")
        #expect(clientKeys.localMasterKey == serverKeys.remoteMasterKey)
    }

    @Test func handshakeGivesUpWhenThePeerIsGone() throws {
        let context = try Self.clientContext.get()
        let client = try DTLSEndpoint(context: context, role: .client, remoteFingerprint: context.certificate.fingerprint,
                                      initialRetransmitMillis: 1)
        var sent = client.start().datagrams.count
        var reason: DTLSCloseReason?
        for _ in 0..<200 where reason == nil {
            guard let wait = client.retransmitDelayNanos else { break }
            // Timer doubling is capped only at 60 s: skip ahead by sleeping just the reported delay, bounded.
            Thread.sleep(forTimeInterval: min(Double(wait) / 1e9, 2) + 0.001)
            let output = client.handleTimeout()
            sent += output.datagrams.count
            reason = output.events.closeReason
        }
        #expect(reason == .failed(.handshakeTimedOut))
        #expect(sent > 3)
        #expect(client.state == .closed)
    }

    @Test func closeNotifyClosesThePeer() throws {
        let pair = try pair()
        pair.run()
        pair.send(pair.client.close(), fromClient: true)
        pair.deliver()
        #expect(pair.serverEvents.closeReason == .peerClosed)
        #expect(pair.server.state == .closed)
        #expect(pair.server.receive([23, 0xFE, 0xFD]).events.isEmpty)
    }

    @Test func garbageAfterTheHandshakeIsDroppedByOpenSSL() throws {
        let pair = try pair()
        pair.run()
        // A record with a bad MAC is silently discarded in DTLS (RFC 6347 §4.1.2.7).
        let bogus: [UInt8] = [23, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 0, 9, 0, 4, 1, 2, 3, 4]
        #expect(pair.server.receive(bogus).events.isEmpty)
        #expect(pair.server.state == .connected)
        // A genuine record with one bit of its ciphertext flipped fails authentication: OpenSSL drops it itself.
        let closeNotify = try #require(pair.client.close().first)
        var forged = closeNotify
        forged[forged.count - 1] ^= 0x01
        #expect(pair.server.receive(forged).events.isEmpty)
        #expect(pair.server.state == .connected)
        // Records too short for the cipher's nonce and tag, at every length, and one whose length
        // runs past its datagram: all dropped before OpenSSL (3.0.19 stops reading after such a record).
        for length in 0..<24 {
            let short = [23, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 1, UInt8(length), 0, UInt8(length)] + [UInt8](repeating: 0xA5, count: length)
            #expect(pair.server.receive(short).events.isEmpty, "length \(length)")
        }
        #expect(pair.server.receive([23, 0xFE, 0xFD, 0, 1, 0, 0, 0, 0, 2, 0, 0, 200, 1, 2, 3]).events.isEmpty)
        #expect(pair.server.state == .connected)
        // The bogus record, the 24 short ones and the overrunning one (the forgery never reached our count).
        #expect(pair.server.discardedRecords == 26)
        // The session went on: the genuine record still reads (the forgery did not burn its sequence number).
        #expect(pair.server.receive(closeNotify).events == [.closed(.peerClosed)])
    }
}
