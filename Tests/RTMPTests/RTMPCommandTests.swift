import NIOCore
import Testing

@testable import RTMP

@Suite("RTMP commands")
struct RTMPCommandTests {
    @Test func connectBytes() throws {
        let url = try RTMPURL("rtmp://live.example.com/app/key")
        let parameters = RTMPConnectParameters(url: url, fourCCList: [.avc1, .hvc1, .av01], capabilities: .reconnect)
        let message = RTMPMessage(RTMPCommand.connect(parameters, transactionID: 1), chunkStreamID: 3)
        let expected: [UInt8] =
            amfString("connect") + amfNumber(1)
            + [0x03]  // object
            + amfKey("app") + amfString("app")
            + amfKey("type") + amfString("nonprivate")
            + amfKey("flashVer") + amfString("FMLE/3.0 (compatible; livepush)")
            + amfKey("tcUrl") + amfString("rtmp://live.example.com/app")
            + amfKey("fourCcList") + [0x0A, 0, 0, 0, 3] + amfString("avc1") + amfString("hvc1") + amfString("av01")
            + amfKey("capsEx") + amfNumber(1)
            + [0x00, 0x00, 0x09]  // object end
        #expect(message.type == .commandAMF0)
        #expect(message.payload.bytes == expected)
        #expect(try RTMPCommand(message) == RTMPCommand.connect(parameters, transactionID: 1))
    }

    @Test func connectAnnouncingMultitrackBytes() throws {
        let url = try RTMPURL("rtmp://live.example.com/app/key")
        let parameters = RTMPConnectParameters(url: url, fourCCList: [.avc1, .hvc1], capabilities: .reconnect).announcingMultitrack()
        let message = RTMPMessage(RTMPCommand.connect(parameters, transactionID: 1), chunkStreamID: 3)
        let expected: [UInt8] =
            amfString("connect") + amfNumber(1)
            + [0x03]
            + amfKey("app") + amfString("app")
            + amfKey("type") + amfString("nonprivate")
            + amfKey("flashVer") + amfString("FMLE/3.0 (compatible; livepush)")
            + amfKey("tcUrl") + amfString("rtmp://live.example.com/app")
            + amfKey("fourCcList") + [0x0A, 0, 0, 0, 2] + amfString("avc1") + amfString("hvc1")
            // videoFourCcInfoMap: an object of FourCcInfoMask numbers, CanEncode (2) for each codec we send
            + amfKey("videoFourCcInfoMap") + [0x03] + amfKey("avc1") + amfNumber(2) + amfKey("hvc1") + amfNumber(2) + [0x00, 0x00, 0x09]
            // capsEx: Reconnect (1) | Multitrack (2)
            + amfKey("capsEx") + amfNumber(3)
            + [0x00, 0x00, 0x09]
        #expect(message.payload.bytes == expected)
    }

    @Test(arguments: [
        // in the properties (the spec's place), in the information object (some servers), in neither (nginx-rtmp)
        (AMF0Value.object(["capsEx": .number(3), "videoFourCcInfoMap": .object(["*": .number(4), "hvc1": .number(7)])]), AMF0Value?.none,
         RTMPServerCapabilities(capabilities: [.reconnect, .multitrack], videoFourCCInfo: ["*": .canForward, "hvc1": [.canDecode, .canEncode, .canForward]])),
        (.object(["fmsVer": .string("FMS/3,5,7,7009")]), .object(["code": .string("NetConnection.Connect.Success"), "capsEx": .number(2)]),
         RTMPServerCapabilities(capabilities: .multitrack)),
        (.object(["fmsVer": .string("FMS/3,0,1,123")]), .object(["code": .string("NetConnection.Connect.Success")]), RTMPServerCapabilities()),
        // not whole 32-bit numbers: ignored
        (.object(["capsEx": .number(2.5), "videoFourCcInfoMap": .object(["avc1": .string("yes")])]), nil, RTMPServerCapabilities()),
    ])
    func serverCapabilitiesFromConnectResult(properties: AMF0Value, information: AMF0Value?, expected: RTMPServerCapabilities) {
        let capabilities = RTMPServerCapabilities(connectResult: properties, information)
        #expect(capabilities == expected)
        #expect(capabilities.supportsMultitrack == expected.capabilities.contains(.multitrack))
    }

    @Test func connectWithoutEnhancedFieldsLeavesThemOut() {
        let object = RTMPConnectParameters(app: "live", tcURL: "rtmp://h/live").commandObject
        #expect(object.properties.map(\.key) == ["app", "type", "flashVer", "tcUrl"])
    }

    static let publisherCommands: [(RTMPCommand, [UInt8])] = [
        // name | tid | null command object | stream name
        (.releaseStream("k", transactionID: 2), amfString("releaseStream") + amfNumber(2) + [0x05] + amfString("k")),
        (.fcPublish("k", transactionID: 3), amfString("FCPublish") + amfNumber(3) + [0x05] + amfString("k")),
        (.createStream(transactionID: 4), amfString("createStream") + amfNumber(4) + [0x05]),
        (.publish("k", transactionID: 5), amfString("publish") + amfNumber(5) + [0x05] + amfString("k") + amfString("live")),
        (.fcUnpublish("k", transactionID: 6), amfString("FCUnpublish") + amfNumber(6) + [0x05] + amfString("k")),
        (.deleteStream(messageStreamID: 1, transactionID: 7), amfString("deleteStream") + amfNumber(7) + [0x05] + amfNumber(1)),
    ]

    @Test(arguments: publisherCommands)
    func publisherCommandBytes(command: RTMPCommand, bytes: [UInt8]) throws {
        #expect(command.encoded().bytes == bytes)
        #expect(command.encodedSize == bytes.count)
        var buffer = ByteBuffer(bytes)
        #expect(try RTMPCommand(from: &buffer) == command)
    }

    @Test func amf3CommandSkipsTheFormatByte() throws {
        let payload: [UInt8] = [0x00] + amfString("onBWDone") + amfNumber(0) + [0x05]
        let message = RTMPMessage(chunkStreamID: 3, messageStreamID: 0, timestamp: 0, type: .commandAMF3, payload: ByteBuffer(payload))
        #expect(try RTMPServerCommand(message) == .other(name: "onBWDone"))
    }

    @Test(arguments: [
        (amfNumber(1), RTMPError.malformedCommand(reason: "first value is not the command name")),
        (amfString("x") + amfString("y"), .malformedCommand(reason: "x has no transaction id")),
    ])
    func malformed(bytes: [UInt8], expected: RTMPError) {
        var buffer = ByteBuffer(bytes)
        #expect(rtmpError { _ = try RTMPCommand(from: &buffer) } == expected)
    }

    /// The info object servers send, as AMF0 bytes.
    static func info(level: String, code: String, description: String, extra: [UInt8] = []) -> [UInt8] {
        [0x03] + amfKey("level") + amfString(level) + amfKey("code") + amfString(code)
            + amfKey("description") + amfString(description) + extra + [0x00, 0x00, 0x09]
    }

    static func decode(_ bytes: [UInt8]) throws -> RTMPServerCommand {
        var buffer = ByteBuffer(bytes)
        return RTMPServerCommand(try RTMPCommand(from: &buffer))
    }

    @Test func connectResult() throws {
        let bytes =
            amfString("_result") + amfNumber(1)
            + [0x03] + amfKey("fmsVer") + amfString("FMS/3,0,1,123") + [0x00, 0x00, 0x09]
            + Self.info(level: "status", code: "NetConnection.Connect.Success", description: "Connection succeeded.")
        guard case .result(1, let properties, let information?) = try Self.decode(bytes) else {
            Issue.record("not a _result")
            return
        }
        #expect(properties.objectValue?["fmsVer"] == .string("FMS/3,0,1,123"))
        #expect(RTMPStatus(information) == RTMPStatus(level: .status, code: RTMPStatus.Code.connectSuccess, description: "Connection succeeded."))
    }

    @Test func createStreamResult() throws {
        // _result, tid 4, null, stream id 1
        #expect(try Self.decode(amfString("_result") + amfNumber(4) + [0x05] + amfNumber(1)) == .result(transactionID: 4, commandObject: .null, information: .number(1)))
    }

    @Test func errorAndStatus() throws {
        let error = try Self.decode(
            amfString("_error") + amfNumber(1) + [0x05]
                + Self.info(level: "error", code: "NetConnection.Connect.Rejected", description: "bad app"))
        #expect(error == .error(transactionID: 1, status: RTMPStatus(level: .error, code: "NetConnection.Connect.Rejected", description: "bad app")))

        let status = try Self.decode(
            amfString("onStatus") + amfNumber(0) + [0x05]
                + Self.info(level: "status", code: "NetStream.Publish.Start", description: "Start publishing"))
        #expect(status == .onStatus(RTMPStatus(level: .status, code: "NetStream.Publish.Start", description: "Start publishing")))
    }

    @Test func reconnectRequestCarriesTcUrl() throws {
        let bytes =
            amfString("onStatus") + amfNumber(0) + [0x05]
            + Self.info(
                level: "status", code: "NetConnection.Connect.ReconnectRequest", description: "maintenance",
                extra: amfKey("tcUrl") + amfString("rtmp://other.example.com/app"))
        guard case .onStatus(let status) = try Self.decode(bytes) else {
            Issue.record("not onStatus")
            return
        }
        #expect(status.tcURL == "rtmp://other.example.com/app")
        #expect(RTMPStatus(status.infoObject) == status)
    }

    @Test func onBWDoneWithoutCommandObjectAndOthers() throws {
        // some servers end onBWDone right after the transaction id
        #expect(try Self.decode(amfString("onBWDone") + amfNumber(0)) == .other(name: "onBWDone"))
        #expect(try Self.decode(amfString("onFCPublish") + amfNumber(0) + [0x05]) == .other(name: "onFCPublish"))
    }

    @Test func bareCommandNameAsFFmpegsServerSendsOnFCPublish() throws {
        // ffmpeg -listen 1: string "onFCPublish" and nothing else (no transaction id, no command object)
        var buffer = ByteBuffer(amfString("onFCPublish"))
        #expect(try RTMPCommand(from: &buffer) == RTMPCommand(name: "onFCPublish", transactionID: 0))
    }
}
