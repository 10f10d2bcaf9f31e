import Foundation
import Output
import RTMP
import RTMPClient
import Testing
import TestSupport

/// RTMPOutput against servers that break the protocol: a clear error each time, a reconnect where one
/// can help, no crash, and nothing buffered without bound.
@Suite(.timeLimit(.minutes(2))) struct HostileServerTests {
    static func output(port: Int, timeoutSeconds: Double = 1) throws -> RTMPOutput {
        var configuration = RTMPOutputConfiguration(
            url: try RTMPURL("rtmp://127.0.0.1:\(port)/live/secret-key"),
            stream: RTMPStreamDescription(codec: .h264, width: 640, height: 360, framesPerSecond: 30, videoBitrateBitsPerSecond: 1_000_000))
        configuration.connectTimeoutSeconds = timeoutSeconds
        configuration.handshakeTimeoutSeconds = timeoutSeconds
        configuration.transactionTimeoutSeconds = timeoutSeconds
        configuration.reconnect = ReconnectPolicy(initialDelaySeconds: 0.1, maximumDelaySeconds: 0.2)
        return RTMPOutput(configuration: configuration)
    }

    @Test(arguments: [
        (HostileRTMPServer.Behaviour.closeDuringHandshake, "closed the connection during the handshake"),
        (.garbage, "not 3"),
        (.silent, "no RTMP handshake answer"),
        (.neverAnswersConnect, "no answer to connect"),
        (.rejectPublish(code: "NetStream.Publish.BadName"), "check the stream key"),
    ])
    func reportsAClearErrorAndReconnects(behaviour: HostileRTMPServer.Behaviour, expected: String) async throws {
        let server = try HostileRTMPServer(behaviour)
        defer { server.close() }
        let output = try Self.output(port: server.port)
        try await output.start(OutputStartContext())
        let sawError = await eventually(within: 10) { output.status.lastError?.contains(expected) == true }
        let reconnected = await eventually(within: 10) { server.connectionCount >= 2 }
        await output.stop()
        let status = output.status
        #expect(sawError, "last error: \(status.lastError ?? "none")")
        #expect(reconnected, "connections: \(server.connectionCount)")
        #expect(status.lastError?.contains("secret-key") != true, "the key must never appear in an error")
        #expect(status.state == .stopped)
    }

    @Test(arguments: ["NetStream.Publish.Unauthorized", "NetStream.Publish.Rejected"])
    func givesUpOnARefusedKey(code: String) async throws {
        let server = try HostileRTMPServer(.rejectPublish(code: code))
        defer { server.close() }
        let output = try Self.output(port: server.port)
        try await output.start(OutputStartContext())
        let failed = await eventually(within: 10) { output.status.state == .failed }
        try await Task.sleep(for: .milliseconds(500))
        #expect(failed, "state: \(output.status.state)")
        #expect(output.status.lastError?.contains(code) == true)
        #expect(server.connectionCount == 1, "a refused key is not retried")
        await output.stop()
    }

    @Test func reportsARefusedConnection() async throws {
        let server = try HostileRTMPServer(.silent)
        let port = server.port
        server.close()
        let output = try Self.output(port: port)
        try await output.start(OutputStartContext())
        let sawError = await eventually(within: 10) { output.status.lastError?.contains("could not connect to 127.0.0.1:\(port)") == true }
        #expect(sawError, "last error: \(output.status.lastError ?? "none")")
        #expect(output.status.state == .reconnecting || output.status.state == .connecting)
        await output.stop()
    }

    // MARK: What FFmpeg and librtmp accept

    /// Starts publishing to a `publishes(quirk)` server and waits (at most 10 s) until the output runs.
    /// - Returns: the server, still open, and whether the output ran on its first connection.
    static func publish(through quirk: HostileRTMPServer.Quirk, until condition: (HostileRTMPServer.Record) -> Bool = { _ in true }) async throws
        -> (HostileRTMPServer.Record, ran: Bool, lastError: String?)
    {
        let server = try HostileRTMPServer(.publishes(quirk))
        defer { server.close() }
        let output = try Self.output(port: server.port, timeoutSeconds: 5)
        try await output.start(OutputStartContext())
        let ran = await eventually(within: 10) { output.status.state == .running && condition(server.record) }
        let status = output.status
        await output.stop()
        return (server.record, ran && server.connectionCount == 1, status.lastError)
    }

    @Test(arguments: [
        HostileRTMPServer.Quirk.chunkSize(field: 0x7FFF_FFFF),
        .chunkSize(field: 0x8000_1000),
        .controlInsideAMessage(size: 50),
        .controlInsideAMessage(size: 0x7FFF_FFFF),
        .unaskedCommands,
        .streamIDWithoutNull,
    ])
    func publishesDespite(_ quirk: HostileRTMPServer.Quirk) async throws {
        let (record, ran, lastError) = try await Self.publish(through: quirk)
        #expect(ran, "last error: \(lastError ?? "none")")
        let publish = record.messages.compactMap { try? RTMPCommand($0) }.first { $0.name == "publish" }
        #expect(publish?.arguments.first == .string("secret-key"))
    }

    @Test func acknowledgesEveryHalfWindow() async throws {
        let window: UInt32 = 4000
        var received: [UInt32] = []
        var sent = 0
        let (_, ran, lastError) = try await Self.publish(through: .acknowledgementWindow(window, padding: 20_000)) { record in
            received = record.messages.compactMap { try? RTMPAcknowledgement($0).sequenceNumber }
            sent = record.bytesSent
            return (received.last ?? 0) + window / 2 > sent && sent > 20_000
        }
        #expect(ran, "last error: \(lastError ?? "none")")
        // One per read that completes half a window (a read may hold several): one before publishing,
        // more for the padding, the last leaving less than half a window unacknowledged, none counting
        // more than was sent.
        #expect(received.count >= 2, "acknowledgements: \(received), bytes sent: \(sent)")
        #expect(received == received.sorted() && (received.last ?? 0) <= sent, "acknowledgements: \(received), bytes sent: \(sent)")
    }

    @Test func answersPingRequests() async throws {
        let (record, ran, lastError) = try await Self.publish(through: .ping(timestamp: 0xCAFE_F00D)) { record in
            record.messages.contains { (try? RTMPUserControlEvent($0)) == .pingResponse(timestamp: 0xCAFE_F00D) }
        }
        #expect(ran, "last error: \(lastError ?? "none"); the client sent \(record.messages.map(\.type))")
    }

    /// Each Set Peer Bandwidth is answered with its window (§5.4.5), then livepush's own window is
    /// announced again, so the server keeps acknowledging often enough to prove delivery.
    @Test func answersPeerBandwidthOfEveryLimitType() async throws {
        let windows: [UInt32] = [2_500_000, 1_000_000, 5_000_000, 3_000_000]
        let own = RTMPOutput.acknowledgementWindow(bitsPerSecond: 1_000_000)
        let expected = [own] + windows.flatMap { [$0, own] }
        var answers: [UInt32] = []
        let (_, ran, lastError) = try await Self.publish(through: .peerBandwidth(windows)) { record in
            answers = record.messages.compactMap { try? RTMPWindowAcknowledgementSize($0).windowSize }
            return answers == expected
        }
        #expect(ran, "last error: \(lastError ?? "none")")
        #expect(answers == expected)
    }
}
