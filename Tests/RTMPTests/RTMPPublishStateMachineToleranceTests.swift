import NIOCore
import Testing

@testable import RTMP

/// What servers send that FFmpeg's and librtmp's publishers accept, fed to the state machine as the chunk
/// reader delivers it: byte vectors of message payloads, each with what the publisher must do.
@Suite("RTMPPublishStateMachine tolerance")
struct RTMPPublishStateMachineToleranceTests {
    typealias Machine = RTMPPublishStateMachine

    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var type: RTMPMessageType
        var payload: [UInt8]
        var testDescription: String { name }

        init(_ name: String, _ type: RTMPMessageType, _ payload: [UInt8]) {
            self.name = name
            self.type = type
            self.payload = payload
        }

        /// An AMF0 command message.
        init(_ name: String, _ payload: [UInt8]) {
            self.init(name, .commandAMF0, payload)
        }

        var event: Machine.Event {
            .messageReceived(RTMPMessage(chunkStreamID: 3, messageStreamID: 0, timestamp: 0, type: type, payload: ByteBuffer(payload)))
        }
    }

    static let null: [UInt8] = [0x05]
    static let emptyObject: [UInt8] = [0x03, 0x00, 0x00, 0x09]
    /// AMF0 date: marker 0x0B, milliseconds as a double, time zone.
    static let date: [UInt8] = [0x0B] + Array(amfNumber(1).dropFirst()) + [0x00, 0x00]
    /// AMF0 ECMA array {version: "3,5"}, as Wowza puts in `data`.
    static let ecmaArray: [UInt8] = [0x08, 0, 0, 0, 1] + amfKey("version") + amfString("3,5") + [0x00, 0x00, 0x09]
    static let extraFields: [UInt8] =
        amfKey("details") + amfString("key") + amfKey("clientid") + amfNumber(7) + amfKey("when") + date + amfKey("data") + ecmaArray

    static func info(_ level: String, _ code: String, extra: [UInt8] = []) -> [UInt8] {
        [0x03] + amfKey("level") + amfString(level) + amfKey("code") + amfString(code)
            + amfKey("description") + amfString("d") + extra + [0x00, 0x00, 0x09]
    }

    /// Messages a publisher must ignore at any point of the session: none may fail it or change its state.
    static let ignored: [Vector] = [
        Vector("onBWDone, 0, null", amfString("onBWDone") + amfNumber(0) + null),
        Vector("onBWDone, bare name", amfString("onBWDone")),
        Vector("onBWDone as AMF3 command", .commandAMF3, [0x00] + amfString("onBWDone") + amfNumber(0) + null + amfNumber(8192)),
        // FMS and Wowza answer FCPublish with an info object that has the code onStatus uses
        Vector("onFCPublish with Publish.Start info", amfString("onFCPublish") + amfNumber(0) + null + info("status", "NetStream.Publish.Start")),
        Vector("onFCPublish, a string where the transaction id goes", amfString("onFCPublish") + amfString("key")),
        Vector("_checkbw with an AMF3 object", amfString("_checkbw") + amfNumber(0) + null + [0x11, 0x0A]),
        Vector("close with a typed object", amfString("close") + amfNumber(0) + null + [0x10] + amfKey("T") + [0x00, 0x00, 0x09]),
        Vector("unknown command, truncated body", amfString("onTextData") + [0x00, 0x3F]),
        Vector("_result for an unknown transaction", amfString("_result") + amfNumber(99) + null + amfNumber(1)),
        Vector("_result with a fractional transaction id", amfString("_result") + amfNumber(4.5) + null + amfNumber(1)),
        Vector("_error for releaseStream", amfString("_error") + amfNumber(2) + null + info("error", "NetStream.Publish.BadName")),
        Vector("_error for an unknown transaction, no info", amfString("_error") + amfNumber(42)),
        Vector(
            "onStatus with extra fields, status level",
            amfString("onStatus") + amfNumber(0) + null
                + info("status", "NetStream.Publish.Idle", extra: extraFields)),
        Vector("onStatus, warning level", amfString("onStatus") + amfNumber(0) + null + info("warning", "NetStream.Publish.Slow")),
        Vector("onStatus, level outside the spec", amfString("onStatus") + amfNumber(0) + null + info("Error", "NetStream.Publish.Whatever")),
        Vector("onStatus without an info object", amfString("onStatus") + amfNumber(0) + null),
        Vector("onStatus, info without a code", amfString("onStatus") + amfNumber(0) + null + emptyObject),
        // user control: only Ping Request needs reading
        Vector("Stream Begin without its stream id", .userControl, [0x00, 0x00]),
        Vector("Stream EOF with trailing bytes", .userControl, [0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0xFF]),
        Vector("Set Buffer Length, truncated", .userControl, [0x00, 0x03, 0x00, 0x00]),
        Vector("SWF verification request", .userControl, [0x00, 0x1A]),
        Vector("Ping Response", .userControl, [0x00, 0x07, 0x00, 0x00, 0x00, 0x09]),
        // message types a publisher has no use for
        Vector("Acknowledgement", .acknowledgement, [0x00, 0x00, 0x10, 0x00]),
        Vector("data message", .dataAMF0, amfString("|RtmpSampleAccess") + [0x01, 0x01, 0x01, 0x01]),
        Vector("shared object", RTMPMessageType(rawValue: 19), [0xFF]),
        Vector("aggregate", .aggregate, [0x09, 0x00]),
        Vector("audio", .audio, [0xAF, 0x01]),
        Vector("unknown type 0x7F", RTMPMessageType(rawValue: 0x7F), [0x00]),
    ]

    /// Each state the publisher waits in, with the message that moves it on once the vector was ignored.
    static func machines() -> [(Machine, Machine.Event, (Machine.Action) -> Bool)] {
        var connecting = Machine(configuration: .init(url: RTMPPublishStateMachineTests.url))
        _ = connecting.handle(.handshakeDone)
        let connectResult = Vector("", amfString("_result") + amfNumber(1) + emptyObject + info("status", RTMPStatus.Code.connectSuccess))
        var creating = connecting
        _ = creating.handle(connectResult.event)
        let createResult = Vector("", amfString("_result") + amfNumber(4) + null + amfNumber(1))
        var awaiting = creating
        _ = awaiting.handle(createResult.event)
        let start = Vector("", amfString("onStatus") + amfNumber(0) + null + info("status", RTMPStatus.Code.publishStart))
        var publishing = awaiting
        _ = publishing.handle(start.event)
        let stop = Machine.Event.stopRequested
        return [
            (connecting, connectResult.event, { RTMPPublishStateMachineTests.commands(in: $0).map(\.name) == ["releaseStream", "FCPublish", "createStream"] }),
            (creating, createResult.event, { RTMPPublishStateMachineTests.commands(in: $0).map(\.name) == ["publish"] }),
            (awaiting, start.event, { $0 == .publishingStarted(messageStreamID: 1) }),
            (publishing, stop, { if case .close(let goodbye) = $0 { return goodbye.count == 2 } else { return false } }),
        ]
    }

    @Test(arguments: ignored)
    func isIgnoredInEveryState(_ vector: Vector) {
        for (index, (machine, next, expected)) in Self.machines().enumerated() {
            var machine = machine
            let state = machine.state
            #expect(machine.handle(vector.event) == .none, "state \(index)")
            #expect(machine.state == state, "state \(index)")
            let action = machine.handle(next)
            #expect(expected(action), "state \(index) went on with \(action)")
        }
    }

    // MARK: _result shapes

    /// Answers to connect that carry on to createStream: missing or surplus values, a number where the
    /// info object goes, a null command object.
    @Test(arguments: [
        Vector("bare", amfString("_result") + amfNumber(1)),
        Vector("null command object, no info", amfString("_result") + amfNumber(1) + null),
        Vector("number where the info goes", amfString("_result") + amfNumber(1) + null + amfNumber(1)),
        Vector("info first", amfString("_result") + amfNumber(1) + info("status", RTMPStatus.Code.connectSuccess)),
        Vector(
            "surplus values", amfString("_result") + amfNumber(1) + emptyObject + info("status", RTMPStatus.Code.connectSuccess) + amfString("x") + null),
        Vector("AMF3 command", .commandAMF3, [0x00] + amfString("_result") + amfNumber(1) + null + info("status", RTMPStatus.Code.connectSuccess)),
    ])
    func connectAnswerShapes(_ vector: Vector) {
        var machine = Machine(configuration: .init(url: RTMPPublishStateMachineTests.url))
        _ = machine.handle(.handshakeDone)
        let action = machine.handle(vector.event)
        #expect(RTMPPublishStateMachineTests.commands(in: action).map(\.name) == ["releaseStream", "FCPublish", "createStream"])
    }

    /// Answers to createStream and the message stream publish goes out on; nil when the answer has no
    /// usable stream id, which fails the session naming the problem (FFmpeg and librtmp would publish on
    /// stream 0, which no server accepts).
    static let createStreamAnswers: [(Vector, UInt32?)] = [
        (Vector("null, id", amfString("_result") + amfNumber(4) + null + amfNumber(1)), 1),
        (Vector("null, id, surplus", amfString("_result") + amfNumber(4) + null + amfNumber(3) + amfString("x")), 3),
        (Vector("id where the null goes", amfString("_result") + amfNumber(4) + amfNumber(5)), 5),
        (Vector("object, id", amfString("_result") + amfNumber(4) + emptyObject + amfNumber(7)), 7),
        (Vector("no id", amfString("_result") + amfNumber(4) + null), nil),
        (Vector("bare", amfString("_result") + amfNumber(4)), nil),
        (Vector("id as a string", amfString("_result") + amfNumber(4) + null + amfString("1")), nil),
        (Vector("fractional id", amfString("_result") + amfNumber(4) + null + amfNumber(1.5)), nil),
        (Vector("negative id", amfString("_result") + amfNumber(4) + null + amfNumber(-1)), nil),
    ]

    @Test(arguments: createStreamAnswers)
    func createStreamAnswerShapes(_ vector: Vector, streamID: UInt32?) {
        var machine = Self.machines()[1].0
        let action = machine.handle(vector.event)
        guard let streamID else {
            #expect(action == .fail(.unexpectedResponse(command: "createStream", reason: "no message stream id (a whole number) in the answer")))
            return
        }
        guard case .send(let messages, awaitingTransaction: 5) = action else {
            Issue.record("expected publish, got \(action)")
            return
        }
        #expect(messages.map(\.messageStreamID) == [streamID])
        #expect(machine.messageStreamID == streamID)
    }

    // MARK: onStatus

    /// onStatus while publish is pending: a code and level → what the publisher does (nil: ignore).
    static let statusWhilePublishIsPendingCases: [(Vector, Machine.Action?)] = [
        (Vector("Publish.Start", amfString("onStatus") + amfNumber(0) + null + info("status", "NetStream.Publish.Start")), .publishingStarted(messageStreamID: 1)),
        (Vector("Publish.Start, extra fields", amfString("onStatus") + amfNumber(0) + null + info("status", "NetStream.Publish.Start", extra: extraFields)), .publishingStarted(messageStreamID: 1)),
        (Vector("Publish.Start, info first", amfString("onStatus") + amfNumber(0) + info("status", "NetStream.Publish.Start")), .publishingStarted(messageStreamID: 1)),
        (Vector("unknown code, status", amfString("onStatus") + amfNumber(0) + null + info("status", "NetStream.Publish.Idle")), nil),
        (Vector("unknown code, warning", amfString("onStatus") + amfNumber(0) + null + info("warning", "NetStream.Publish.Idle")), nil),
        (Vector("unknown code, error", amfString("onStatus") + amfNumber(0) + null + info("error", "NetStream.Publish.Failed")), .fail(.publishRejected(code: "NetStream.Publish.Failed", description: "d"))),
        (Vector("BadName", amfString("onStatus") + amfNumber(0) + null + info("error", "NetStream.Publish.BadName")), .fail(.publishRejected(code: "NetStream.Publish.BadName", description: "d"))),
        // a refusal code is a refusal at any level
        (Vector("BadName, warning", amfString("onStatus") + amfNumber(0) + null + info("warning", "NetStream.Publish.BadName")), .fail(.publishRejected(code: "NetStream.Publish.BadName", description: "d"))),
        (Vector("Connect.Rejected", amfString("onStatus") + amfNumber(0) + null + info("error", "NetConnection.Connect.Rejected")), .fail(.connectRejected(code: "NetConnection.Connect.Rejected", description: "d"))),
        (Vector("Connect.Closed, status", amfString("onStatus") + amfNumber(0) + null + info("status", "NetConnection.Connect.Closed")), nil),
    ]

    @Test(arguments: statusWhilePublishIsPendingCases)
    func statusWhilePublishIsPending(_ vector: Vector, expected: Machine.Action?) {
        var machine = Self.machines()[2].0
        #expect(machine.handle(vector.event) == expected ?? .none)
    }

    /// Publish.Start before the stream exists is ignored; publish's own `_result`, after it, too.
    @Test func statusBeforeAndResultAfter() {
        let start = Vector("", amfString("onStatus") + amfNumber(0) + Self.null + Self.info("status", "NetStream.Publish.Start"))
        var machine = Self.machines()[1].0
        #expect(machine.handle(start.event) == .none)
        _ = machine.handle(Vector("", amfString("_result") + amfNumber(4) + Self.null + amfNumber(1)).event)
        #expect(machine.handle(start.event) == .publishingStarted(messageStreamID: 1))
        #expect(machine.handle(Vector("", amfString("_result") + amfNumber(5) + Self.null).event) == .none)
        #expect(machine.isPublishing)
    }

    @Test func refusalsNameTheCodeAndDescription() {
        let text = "\(RTMPError.publishRejected(code: "NetStream.Publish.BadName", description: "Already publishing"))"
        #expect(text.contains("NetStream.Publish.BadName") && text.contains("Already publishing"))
        let connect = "\(RTMPError.connectRejected(code: "NetConnection.Connect.Rejected", description: "no such app"))"
        #expect(connect.contains("NetConnection.Connect.Rejected") && connect.contains("no such app"))
    }

    // MARK: User control

    static let pingRequestCases: [(Vector, Machine.Action)] = [
        (Vector("Ping Request", .userControl, [0x00, 0x06, 0xDE, 0xAD, 0xBE, 0xEF]), Machine.Action.send([RTMPMessage(RTMPUserControlEvent.pingResponse(timestamp: 0xDEAD_BEEF))], awaitingTransaction: nil)),
        (Vector("Ping Request, trailing bytes", .userControl, [0x00, 0x06, 0x00, 0x00, 0x00, 0x01, 0xFF]), .send([RTMPMessage(RTMPUserControlEvent.pingResponse(timestamp: 1))], awaitingTransaction: nil)),
        // as FFmpeg: a Ping Request without its 4-byte timestamp cannot be answered
        (Vector("Ping Request, truncated", .userControl, [0x00, 0x06, 0x00]), .fail(.truncated(what: "Ping Request", needed: 4, available: 1))),
    ]

    @Test(arguments: pingRequestCases)
    func pingRequests(_ vector: Vector, expected: Machine.Action) {
        var machine = Self.machines()[3].0
        #expect(machine.handle(vector.event) == expected)
    }
}
