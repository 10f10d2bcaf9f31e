import NIOCore
import Testing
import TestSupport
@testable import WebRTC

@Suite("ICE-lite agent and demultiplexer")
struct ICELiteAgentTests {
    static let local = ICECredentials(ufrag: "srvUfrag", pwd: "serverPassword0123456789")
    static let remote = ICECredentials(ufrag: "NRp0", pwd: "5VcwuCqU1JLd7Xnv1tBUXW/Y")
    static let browser = TransportAddress("127.0.0.1", 51000)!
    static let second = TransportAddress("127.0.0.1", 51001)!
    static let second30 = UInt64(1_000_000_000)

    /// A browser's check: USERNAME local:remote, keyed with our password.
    static func check(username: String = "srvUfrag:NRp0", key: String = local.pwd, useCandidate: Bool = false, seed: UInt64 = 1) throws -> ByteBuffer {
        var generator = SplitMix64(seed: seed)
        var attributes: [STUNAttribute] = [.username(username), .priority(1_853_824_767), .iceControlling(42)]
        if useCandidate { attributes.append(.useCandidate) }
        return try STUNMessage(type: .bindingRequest, transactionID: .random(using: &generator), attributes: attributes)
            .encoded(integrityKey: Array(key.utf8))
    }

    static func agent(timeoutSeconds: UInt64 = 30) -> ICELiteAgent {
        ICELiteAgent(localCredentials: local, remoteCredentials: remote,
                     configuration: .init(consentTimeoutNanos: timeoutSeconds * second30), nowNanos: 0)
    }

    @Test func validCheckIsAnsweredWithMappedAddressAndSelectedOnUseCandidate() throws {
        var agent = Self.agent()
        let actions = agent.handle(.datagram(try Self.check(useCandidate: true), from: Self.browser, nowNanos: 1))
        guard case .send(let response, let destination) = actions.first else {
            Issue.record("no response: \(actions)")
            return
        }
        #expect(destination == Self.browser)
        #expect(Array(actions.dropFirst()) == [.validated(Self.browser), .selected(Self.browser)])
        var copy = response
        let decoded = try STUNMessage(from: &copy)
        #expect(decoded.type == .bindingSuccess)
        #expect(decoded.xorMappedAddress == Self.browser)
        try STUNMessage.checkIntegrity(of: response, key: Array(Self.local.pwd.utf8))
        try STUNMessage.checkFingerprint(of: response)
        #expect(agent.state == .connected(Self.browser))
    }

    @Test func renominationMovesTheSelectedPair() throws {
        var agent = Self.agent()
        _ = agent.handle(.datagram(try Self.check(useCandidate: true), from: Self.browser, nowNanos: 1))
        let again = agent.handle(.datagram(try Self.check(useCandidate: true, seed: 2), from: Self.browser, nowNanos: 2))
        #expect(again.count == 1, "same pair: only the response")
        let moved = agent.handle(.datagram(try Self.check(useCandidate: true, seed: 3), from: Self.second, nowNanos: 3))
        #expect(Array(moved.dropFirst()) == [.validated(Self.second), .selected(Self.second)])
    }

    static let rejected: [(String, String, String, STUNErrorCode)] = [
        ("wrong password", "srvUfrag:NRp0", "not the password at all!", .unauthorized),
        ("someone else's ufrag", "other:NRp0", local.pwd, .unauthorized),
        ("wrong remote ufrag", "srvUfrag:XXXX", local.pwd, .unauthorized),
    ]

    @Test(arguments: rejected)
    func invalidChecksGetErrorResponsesAndNoConsent(name: String, username: String, key: String, error: STUNErrorCode) throws {
        var agent = Self.agent()
        let actions = agent.handle(.datagram(try Self.check(username: username, key: key, useCandidate: true), from: Self.browser, nowNanos: 1))
        guard case .send(var response, _) = actions.first, case .dropped = actions.last else {
            Issue.record("\(name): \(actions)")
            return
        }
        #expect(try STUNMessage(from: &response).errorCode?.code == error.code)
        #expect(agent.state == .waiting)
    }

    @Test func garbageIsDroppedWithATypedReason() {
        var agent = Self.agent()
        let actions = agent.handle(.datagram(bytes("16 fe fd 00 00"), from: Self.browser, nowNanos: 1))
        #expect(actions == [.dropped(.truncated(needed: 20, available: 5))])
    }

    @Test func consentExpiresWithoutChecksAndIsRefreshedByThem() throws {
        var agent = Self.agent(timeoutSeconds: 30)
        _ = agent.handle(.datagram(try Self.check(useCandidate: true), from: Self.browser, nowNanos: 10 * Self.second30))
        #expect(agent.nextDeadlineNanos == 40 * Self.second30)
        #expect(agent.handle(.tick(nowNanos: 39 * Self.second30)).isEmpty)
        _ = agent.handle(.datagram(try Self.check(seed: 9), from: Self.browser, nowNanos: 39 * Self.second30))
        #expect(agent.handle(.tick(nowNanos: 68 * Self.second30)).isEmpty)
        #expect(agent.handle(.tick(nowNanos: 69 * Self.second30)) == [.consentExpired])
        #expect(agent.state == .expired)
        #expect(agent.handle(.tick(nowNanos: 70 * Self.second30)).isEmpty)
        #expect(agent.nextDeadlineNanos == nil)
    }

    @Test func demultiplexerRoutesByUfragThenByTuple() throws {
        var demux = ICEDemultiplexer<Int>()
        demux.register(localUfrag: "srvUfrag", for: 1)
        demux.register(localUfrag: "other", for: 2)
        let port = TransportAddress("127.0.0.1", 40000)!
        let tuple = ICEDemultiplexer<Int>.FiveTuple(local: port, remote: Self.browser)
        #expect(demux.route(try Self.check(), tuple: tuple) == 1)
        #expect(demux.route(try Self.check(username: "other:x"), tuple: tuple) == 2)
        let dtls = bytes("16 fe fd 00 00 00 00 00 00 00 00")
        #expect(demux.route(dtls, tuple: tuple) == nil, "no DTLS before a validated check")
        demux.bind(tuple, to: 1)
        #expect(demux.route(dtls, tuple: tuple) == 1)
        #expect(demux.route(dtls, tuple: .init(local: port, remote: Self.second)) == nil)
        demux.remove(1)
        #expect(demux.route(dtls, tuple: tuple) == nil)
        #expect(demux.route(try Self.check(), tuple: tuple) == nil)
        #expect(demux.route(try Self.check(username: "other:x"), tuple: tuple) == 2)
    }

    @Test func randomCredentialsFollowRFC8445() {
        var generator = SplitMix64(seed: 5)
        let credentials = ICECredentials.random(using: &generator)
        #expect(credentials.ufrag.count >= 4 && credentials.pwd.count >= 22)
        #expect((credentials.ufrag + credentials.pwd).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        #expect(ICECredentials.random(using: &generator) != credentials)
    }
}
