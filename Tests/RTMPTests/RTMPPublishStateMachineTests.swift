import NIOCore
import Testing

@testable import RTMP

@Suite("RTMPPublishStateMachine")
struct RTMPPublishStateMachineTests {
    static let url = try! RTMPURL("rtmp://live.example.com/app/secret-key")

    func machine() -> RTMPPublishStateMachine {
        RTMPPublishStateMachine(configuration: .init(url: Self.url))
    }

    /// A command from the server, as the chunk reader would deliver it.
    static func serverCommand(_ name: String, _ transactionID: Double, _ object: AMF0Value = .null, _ arguments: AMF0Value...) -> RTMPPublishStateMachine.Event {
        .messageReceived(RTMPMessage(RTMPCommand(name: name, transactionID: transactionID, commandObject: object, arguments: arguments), chunkStreamID: 3))
    }

    static func status(_ level: RTMPStatus.Level, _ code: String, _ description: String = "") -> AMF0Value {
        RTMPStatus(level: level, code: code, description: description).infoObject
    }

    static func commands(in action: RTMPPublishStateMachine.Action) -> [RTMPCommand] {
        guard case .send(let messages, _) = action else { return [] }
        return messages.compactMap { try? RTMPCommand($0) }
    }

    /// Drives the machine to the state right after `publish` was sent.
    func machineAwaitingPublishStart() -> RTMPPublishStateMachine {
        var machine = machine()
        _ = machine.handle(.handshakeDone)
        _ = machine.handle(Self.serverCommand("_result", 1, .object([:]), Self.status(.status, RTMPStatus.Code.connectSuccess)))
        _ = machine.handle(Self.serverCommand("_result", 4, .null, .number(1)))
        return machine
    }

    @Test func happyPath() {
        var machine = machine()
        // handshake done → Set Chunk Size 4096 + connect (tid 1)
        let first = machine.handle(.handshakeDone)
        guard case .send(let messages, awaitingTransaction: 1) = first else {
            Issue.record("expected connect, got \(first)")
            return
        }
        #expect(messages.first == RTMPMessage(RTMPSetChunkSize(chunkSize: 4096)))
        #expect(Self.commands(in: first).map(\.name) == ["connect"])
        #expect(messages.last?.chunkStreamID == RTMPChunkStreamID.command)

        // connect _result → releaseStream, FCPublish, createStream (tid 4, awaited)
        let second = machine.handle(Self.serverCommand("_result", 1, .object([:]), Self.status(.status, RTMPStatus.Code.connectSuccess)))
        #expect(Self.commands(in: second).map(\.name) == ["releaseStream", "FCPublish", "createStream"])
        #expect(Self.commands(in: second).first?.arguments == [.string("secret-key")])
        guard case .send(_, awaitingTransaction: 4) = second else {
            Issue.record("createStream must be awaited")
            return
        }

        // the servers' answers to releaseStream/FCPublish change nothing
        #expect(machine.handle(Self.serverCommand("_error", 2, .null, Self.status(.error, "NetStream.Publish.BadName"))) == .none)
        #expect(machine.handle(Self.serverCommand("onFCPublish", 0)) == .none)

        // createStream _result(1) → publish(key, live) on message stream 1
        let third = machine.handle(Self.serverCommand("_result", 4, .null, .number(1)))
        guard case .send(let publish, awaitingTransaction: 5) = third else {
            Issue.record("expected publish, got \(third)")
            return
        }
        #expect(publish.map(\.messageStreamID) == [1])
        #expect(Self.commands(in: third) == [.publish("secret-key", transactionID: 5)])
        #expect(machine.messageStreamID == 1)

        // onStatus Publish.Start → publishing
        let fourth = machine.handle(Self.serverCommand("onStatus", 0, .null, Self.status(.status, RTMPStatus.Code.publishStart)))
        #expect(fourth == .publishingStarted(messageStreamID: 1))
        #expect(machine.isPublishing)

        // the timer for publish fires late: ignored
        #expect(machine.handle(.timeout(transactionID: 5)) == .none)

        // stop → FCUnpublish + deleteStream(1), then close
        guard case .close(let goodbye) = machine.handle(.stopRequested) else {
            Issue.record("expected close")
            return
        }
        #expect(goodbye.compactMap { try? RTMPCommand($0) }.map(\.name) == ["FCUnpublish", "deleteStream"])
        #expect(goodbye.compactMap { try? RTMPCommand($0) }.last?.arguments == [.number(1)])
        #expect(machine.handle(.handshakeDone) == .none)
    }

    @Test(arguments: [
        // (onStatus code, level) → error
        (RTMPStatus.Code.publishBadName, RTMPStatus.Level.error, RTMPError.publishRejected(code: "NetStream.Publish.BadName", description: "d")),
        (RTMPStatus.Code.publishRejected, .error, .publishRejected(code: "NetStream.Publish.Rejected", description: "d")),
        (RTMPStatus.Code.publishUnauthorized, .status, .publishRejected(code: "NetStream.Publish.Unauthorized", description: "d")),
        (RTMPStatus.Code.connectRejected, .error, .connectRejected(code: "NetConnection.Connect.Rejected", description: "d")),
        ("NetStream.Publish.Failed", .error, .publishRejected(code: "NetStream.Publish.Failed", description: "d")),
    ])
    func publishRefusals(code: String, level: RTMPStatus.Level, expected: RTMPError) {
        var machine = machineAwaitingPublishStart()
        #expect(machine.handle(Self.serverCommand("onStatus", 0, .null, Self.status(level, code, "d"))) == .fail(expected))
        #expect(machine.handle(.stopRequested) == .none)
    }

    @Test func connectError() {
        var machine = machine()
        _ = machine.handle(.handshakeDone)
        let action = machine.handle(Self.serverCommand("_error", 1, .null, Self.status(.error, RTMPStatus.Code.connectRejected, "no such app")))
        #expect(action == .fail(.connectRejected(code: "NetConnection.Connect.Rejected", description: "no such app")))
        #expect("\(RTMPError.connectRejected(code: "c", description: "d"))".contains("application name"))
    }

    @Test func publishErrorResultSaysCheckTheKey() {
        var machine = machineAwaitingPublishStart()
        let action = machine.handle(Self.serverCommand("_error", 5))
        #expect(action == .fail(.publishRejected(code: "_error", description: "")))
        #expect("\(RTMPError.publishRejected(code: "_error", description: ""))".contains("check the stream key"))
    }

    @Test func timeouts() {
        var machine = machine()
        _ = machine.handle(.handshakeDone)
        #expect(machine.handle(.timeout(transactionID: 9)) == .none)
        #expect(machine.handle(.timeout(transactionID: 1)) == .fail(.transactionTimedOut(command: "connect", transactionID: 1)))
        var creating = self.machine()
        _ = creating.handle(.handshakeDone)
        _ = creating.handle(Self.serverCommand("_result", 1))
        #expect(creating.handle(.timeout(transactionID: 4)) == .fail(.transactionTimedOut(command: "createStream", transactionID: 4)))
        var publishing = machineAwaitingPublishStart()
        #expect(publishing.handle(.timeout(transactionID: 5)) == .fail(.transactionTimedOut(command: "publish", transactionID: 5)))
    }

    @Test func pingIsAnswered() {
        var machine = machine()
        let ping = RTMPMessage(RTMPUserControlEvent.pingRequest(timestamp: 1234))
        #expect(machine.handle(.messageReceived(ping)) == .send([RTMPMessage(RTMPUserControlEvent.pingResponse(timestamp: 1234))], awaitingTransaction: nil))
        #expect(machine.handle(.messageReceived(RTMPMessage(RTMPUserControlEvent.streamBegin(messageStreamID: 1)))) == .none)
    }

    @Test func acknowledgementsEveryHalfWindow() {
        var machine = machine()
        // no window yet: nothing to acknowledge
        #expect(machine.handle(.bytesReceived(10_000)) == .none)
        _ = machine.handle(.messageReceived(RTMPMessage(RTMPWindowAcknowledgementSize(windowSize: 5000))))
        // 10,000 already received ≥ half the window
        #expect(machine.handle(.bytesReceived(1)) == .send([RTMPMessage(RTMPAcknowledgement(sequenceNumber: 10_001))], awaitingTransaction: nil))
        #expect(machine.handle(.bytesReceived(2499)) == .none)
        #expect(machine.handle(.bytesReceived(1)) == .send([RTMPMessage(RTMPAcknowledgement(sequenceNumber: 12_501))], awaitingTransaction: nil))
        // a window of 1 byte: every byte
        _ = machine.handle(.messageReceived(RTMPMessage(RTMPWindowAcknowledgementSize(windowSize: 1))))
        #expect(machine.handle(.bytesReceived(1)) == .send([RTMPMessage(RTMPAcknowledgement(sequenceNumber: 12_502))], awaitingTransaction: nil))
    }

    /// Any limit type (hard, soft, dynamic, unknown, or none at all) gets the same answer.
    @Test(arguments: [RTMPSetPeerBandwidth.LimitType.hard, .soft, .dynamic, RTMPSetPeerBandwidth.LimitType(rawValue: 7), nil])
    func peerBandwidthIsAnsweredOnceWithOurWindow(limitType: RTMPSetPeerBandwidth.LimitType?) {
        var machine = machineAwaitingPublishStart()
        let bandwidth = RTMPMessage(RTMPSetPeerBandwidth(windowSize: 2_500_000, limitType: limitType))
        #expect(machine.handle(.messageReceived(bandwidth)) == .send([RTMPMessage(RTMPWindowAcknowledgementSize(windowSize: 2_500_000))], awaitingTransaction: nil))
        #expect(machine.handle(.messageReceived(bandwidth)) == .none)
        #expect(machine.handle(Self.serverCommand("onStatus", 0, .null, Self.status(.status, RTMPStatus.Code.publishStart))) == .publishingStarted(messageStreamID: 1))
    }

    /// With its own window configured, the publisher announces it after the handshake and again after
    /// each answer to Set Peer Bandwidth, so the server acknowledges as often as asked.
    @Test func ownAcknowledgementWindowIsAnnouncedAndKept() {
        var machine = RTMPPublishStateMachine(configuration: .init(connect: RTMPConnectParameters(url: Self.url), streamName: "k",
                                                                   acknowledgementWindow: 15_625))
        guard case .send(let messages, _) = machine.handle(.handshakeDone) else {
            Issue.record("expected connect")
            return
        }
        #expect(messages.compactMap { try? RTMPWindowAcknowledgementSize($0).windowSize } == [15_625])
        let bandwidth = RTMPMessage(RTMPSetPeerBandwidth(windowSize: 5_000_000, limitType: .dynamic))
        #expect(machine.handle(.messageReceived(bandwidth)) == .send([RTMPMessage(RTMPWindowAcknowledgementSize(windowSize: 5_000_000)),
                                                                      RTMPMessage(RTMPWindowAcknowledgementSize(windowSize: 15_625))],
                                                                     awaitingTransaction: nil))
        #expect(machine.announcedAcknowledgementWindow == 15_625)
        let same = RTMPMessage(RTMPSetPeerBandwidth(windowSize: 15_625, limitType: .dynamic))
        #expect(machine.handle(.messageReceived(same)) == .none, "already announced")
    }

    /// The server's Acknowledgements add up across the 32-bit wrap of their sequence number.
    @Test func serverAcknowledgementsAreCountedPastTheWrap() {
        var machine = machineAwaitingPublishStart()
        for sequence: UInt32 in [1000, 2_000_000_000, 4_000_000_000, 100] {
            #expect(machine.handle(.messageReceived(RTMPMessage(RTMPAcknowledgement(sequenceNumber: sequence)))) == .none)
        }
        #expect(machine.acknowledgementsReceived == 4)
        #expect(machine.bytesAcknowledgedByPeer == (1 << 32) + 100)
        #expect(machine.largestAcknowledgementStep == 2_000_000_000, "the widest spacing the server used")
    }

    /// An Acknowledgement lower than the one before is a step back, not a wrap: ignored, so it
    /// neither counts almost 4 GiB as acknowledged nor widens the spacing stall detection allows.
    @Test func acknowledgementsGoingBackwardsAreIgnored() {
        var machine = machineAwaitingPublishStart()
        for sequence: UInt32 in [100_000, 50_000, 99_999, 150_000, 0] {
            #expect(machine.handle(.messageReceived(RTMPMessage(RTMPAcknowledgement(sequenceNumber: sequence)))) == .none)
        }
        #expect(machine.bytesAcknowledgedByPeer == 150_000)
        #expect(machine.acknowledgementsReceived == 2, "the three going backwards are not counted")
        #expect(machine.largestAcknowledgementStep == 100_000)
    }

    @Test func serverCapabilitiesComeFromTheConnectResult() {
        var machine = machine()
        _ = machine.handle(.handshakeDone)
        #expect(machine.serverCapabilities == RTMPServerCapabilities())
        let properties = AMF0Value.object(["fmsVer": .string("FMS/3,5,7,7009"), "capsEx": .number(2)])
        _ = machine.handle(Self.serverCommand("_result", 1, properties, Self.status(.status, RTMPStatus.Code.connectSuccess)))
        #expect(machine.serverCapabilities.supportsMultitrack)
        // the createStream answer does not touch them
        _ = machine.handle(Self.serverCommand("_result", 4, .null, .number(1)))
        #expect(machine.serverCapabilities.capabilities == .multitrack)
    }

    @Test func reconnectRequest() {
        var machine = machineAwaitingPublishStart()
        let info = RTMPStatus(level: .status, code: RTMPStatus.Code.connectReconnectRequest, description: "move", tcURL: "rtmp://b.example.com/app").infoObject
        #expect(machine.handle(Self.serverCommand("onStatus", 0, .null, info)) == .reconnectRequested(tcURL: "rtmp://b.example.com/app", description: "move"))
    }

    @Test func malformedServerCommandFails() {
        var machine = machine()
        let garbage = RTMPMessage(chunkStreamID: 3, messageStreamID: 0, timestamp: 0, type: .commandAMF0, payload: ByteBuffer([0x02, 0x00]))
        guard case .fail(.truncated) = machine.handle(.messageReceived(garbage)) else {
            Issue.record("malformed command must fail the session")
            return
        }
    }

    @Test func stopBeforeStreamExistsJustCloses() {
        var machine = machine()
        _ = machine.handle(.handshakeDone)
        #expect(machine.handle(.stopRequested) == .close(send: []))
    }
}
