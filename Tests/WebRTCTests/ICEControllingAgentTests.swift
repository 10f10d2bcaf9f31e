import NIOCore
import Testing
import TestSupport
@testable import WebRTC

/// The WHIP client's agent against our own ICE-lite agent over a simulated loopback network, and
/// against a silent or misbehaving peer, with time stepped by hand.
@Suite("ICE controlling agent")
struct ICEControllingAgentTests {
    typealias Agent = ICEControllingAgent<SplitMix64>
    static let client = ICECredentials(ufrag: "cliUfrag", pwd: "clientPassword0123456789")
    static let server = ICECredentials(ufrag: "srvUfrag", pwd: "serverPassword0123456789")
    static let clientAddress = TransportAddress("127.0.0.1", 50000)!
    static let serverAddress = TransportAddress("127.0.0.1", 40000)!
    static let millisecond: UInt64 = 1_000_000

    static func agent(nomination: Agent.Nomination = .regular, remoteCandidates: [ICECandidate] = [.host(serverAddress)]) -> Agent {
        var configuration = Agent.Configuration()
        configuration.nomination = nomination
        return Agent(local: client, localCandidates: [.host(clientAddress)], remote: server, remoteCandidates: remoteCandidates,
                     configuration: configuration, random: SplitMix64(seed: 7))
    }

    /// Delivers the client's sends to the lite agent and its responses back, until quiet.
    struct Loopback {
        var client: Agent
        var server = ICELiteAgent(localCredentials: ICEControllingAgentTests.server, remoteCredentials: ICEControllingAgentTests.client, nowNanos: 0)
        var answering = true
        var clientEvents: [Agent.Action] = []
        var serverEvents: [ICELiteAgent.Action] = []
        var checksSent = 0

        mutating func run(_ actions: [Agent.Action], now: UInt64) {
            var pending = actions
            while !pending.isEmpty {
                let action = pending.removeFirst()
                guard case .send(let bytes, let from, _) = action else {
                    clientEvents.append(action)
                    continue
                }
                checksSent += 1
                guard answering else { continue }
                for reply in server.handle(.datagram(bytes, from: from, nowNanos: now)) {
                    guard case .send(let response, let to) = reply else {
                        serverEvents.append(reply)
                        continue
                    }
                    pending += client.handle(.datagram(response, from: ICEControllingAgentTests.serverAddress, to: to, nowNanos: now))
                }
            }
        }

        mutating func advance(to now: UInt64) {
            run(client.handle(.tick(nowNanos: now)), now: now)
        }
    }

    static let expectedPair = ICECandidatePair(local: clientAddress, remote: serverAddress,
                                               priority: ICECandidatePair.priority(controlling: ICECandidate.host(clientAddress).priority,
                                                                                   controlled: ICECandidate.host(serverAddress).priority))

    @Test(arguments: [Agent.Nomination.regular, .aggressive])
    func connectsToTheLiteAgent(nomination: Agent.Nomination) {
        var network = Loopback(client: Self.agent(nomination: nomination))
        network.run(network.client.handle(.start(nowNanos: 0)), now: 0)
        for step in 1...4 { network.advance(to: UInt64(step) * 50 * Self.millisecond) }
        #expect(network.clientEvents == [.connected(Self.expectedPair)])
        #expect(network.serverEvents == [.validated(Self.clientAddress), .selected(Self.clientAddress)])
        #expect(network.client.state == .connected(Self.expectedPair))
    }

    @Test func consentKeepsBothSidesAliveAndIsLostWhenThePeerStops() {
        var network = Loopback(client: Self.agent(nomination: .aggressive))
        network.run(network.client.handle(.start(nowNanos: 0)), now: 0)
        // Two minutes of consent checks every 4–6 s keep the lite agent's 30 s timer fed.
        var now: UInt64 = 0
        let connectChecks = network.checksSent
        while now < 120_000 * Self.millisecond {
            now = network.client.nextDeadlineNanos ?? now + 1000 * Self.millisecond
            network.advance(to: now)
            #expect(network.server.handle(.tick(nowNanos: now)).isEmpty)
        }
        #expect((20...30).contains(network.checksSent - connectChecks), "one check per 4–6 s")
        #expect(network.clientEvents == [.connected(Self.expectedPair)])
        network.answering = false
        let silenceStart = now
        while network.client.state != .consentLost, now < silenceStart + 60_000 * Self.millisecond {
            now = network.client.nextDeadlineNanos ?? now + 1000 * Self.millisecond
            network.advance(to: now)
        }
        #expect(network.clientEvents.last == .consentLost)
        #expect(now - silenceStart <= 30_000 * Self.millisecond)
        #expect(now - silenceStart >= 24_000 * Self.millisecond)
    }

    @Test func silentPeerRetransmitsWithBackoffThenFails() {
        var agent = Self.agent()
        var sendTimes: [UInt64] = []
        var events: [Agent.Action] = []
        var now: UInt64 = 0
        var actions = agent.handle(.start(nowNanos: 0))
        while agent.state == .checking {
            for action in actions {
                if case .send = action { sendTimes.append(now) } else { events.append(action) }
            }
            guard let deadline = agent.nextDeadlineNanos else { break }
            now = max(deadline, now + 1)
            actions = agent.handle(.tick(nowNanos: now))
        }
        events += actions.filter { if case .send = $0 { false } else { true } }
        #expect(events == [.failed])
        #expect(sendTimes.count == 7)
        // 250, 500, 1000, ... ms between transmissions (RFC 8489 §6.2.1).
        let gaps = zip(sendTimes.dropFirst(), sendTimes).map { ($0 - $1) / Self.millisecond }
        #expect(gaps == [250, 500, 1000, 2000, 4000, 8000])
    }

    @Test func forgedResponsesAreDropped() throws {
        var agent = Self.agent()
        let actions = agent.handle(.start(nowNanos: 0))
        guard case .send(var request, _, _) = actions.first else {
            Issue.record("no check sent")
            return
        }
        let id = try STUNMessage(from: &request).transactionID
        let forged = try STUNMessage(type: .bindingSuccess, transactionID: id, attributes: [.xorMappedAddress(Self.clientAddress)])
            .encoded(integrityKey: Array("guessed password".utf8))
        let result = agent.handle(.datagram(forged, from: Self.serverAddress, to: Self.clientAddress, nowNanos: 1))
        #expect(result == [.dropped(.integrityCheckFailed(reason: "MESSAGE-INTEGRITY does not match the key"))])
        #expect(agent.state == .checking)
    }

    @Test func peerChecksAreAnsweredAndAControllingPeerGetsRoleConflict() throws {
        var agent = Self.agent()
        _ = agent.handle(.start(nowNanos: 0))
        var generator = SplitMix64(seed: 3)
        for (controlling, expected) in [(false, STUNMessageType.bindingSuccess), (true, .bindingError)] {
            let role: STUNAttribute = controlling ? .iceControlling(1) : .iceControlled(1)
            let check = try STUNMessage(type: .bindingRequest, transactionID: .random(using: &generator),
                                        attributes: [.username("cliUfrag:srvUfrag"), .priority(100), role])
                .encoded(integrityKey: Array(Self.client.pwd.utf8))
            let actions = agent.handle(.datagram(check, from: Self.serverAddress, to: Self.clientAddress, nowNanos: 1))
            guard case .send(var response, let from, let to) = actions.first else {
                Issue.record("no response")
                continue
            }
            #expect(from == Self.clientAddress && to == Self.serverAddress)
            let decoded = try STUNMessage(from: &response)
            #expect(decoded.type == expected)
            #expect(decoded.errorCode?.code == (controlling ? 487 : nil))
        }
    }

    @Test func restartUsesNewCredentials() throws {
        var agent = Self.agent()
        _ = agent.handle(.start(nowNanos: 0))
        let fresh = ICECredentials(ufrag: "newUfrag", pwd: "newPassword0123456789abc")
        agent.restart(local: fresh, remote: ICECredentials(ufrag: "srv2", pwd: "serverPassword2222222222"), remoteCandidates: [.host(Self.serverAddress)])
        guard case .send(var request, _, _) = agent.handle(.start(nowNanos: 10)).first else {
            Issue.record("no check after restart")
            return
        }
        #expect(try STUNMessage(from: &request).username == "srv2:newUfrag")
    }

    @Test func noCandidatesFailsAtOnce() {
        var agent = Self.agent(remoteCandidates: [])
        #expect(agent.handle(.start(nowNanos: 0)) == [.failed])
    }
}
