import Foundation
import Pipeline
import RTMP
import RTMPClient
import Testing

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

    /// Waits (at most `seconds`) until `condition` holds.
    static func eventually(_ seconds: Double, _ condition: () -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    @Test(arguments: [
        (HostileRTMPServer.Behaviour.closeDuringHandshake, "closed the connection during the handshake"),
        (.garbage, "not 3"),
        (.silent, "no RTMP handshake answer"),
        (.enormousChunkSize, "chunk size 2147483647"),
        (.neverAnswersConnect, "no answer to connect"),
        (.rejectPublish(code: "NetStream.Publish.BadName"), "check the stream key"),
    ])
    func reportsAClearErrorAndReconnects(behaviour: HostileRTMPServer.Behaviour, expected: String) async throws {
        let server = try HostileRTMPServer(behaviour)
        defer { server.close() }
        let output = try Self.output(port: server.port)
        try await output.start(requestKeyFrame: {})
        let sawError = try await Self.eventually(10) { output.status.lastError?.contains(expected) == true }
        let reconnected = try await Self.eventually(10) { server.connectionCount >= 2 }
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
        try await output.start(requestKeyFrame: {})
        let failed = try await Self.eventually(10) { output.status.state == .failed }
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
        try await output.start(requestKeyFrame: {})
        let sawError = try await Self.eventually(10) { output.status.lastError?.contains("could not connect to 127.0.0.1:\(port)") == true }
        #expect(sawError, "last error: \(output.status.lastError ?? "none")")
        #expect(output.status.state == .reconnecting || output.status.state == .connecting)
        await output.stop()
    }
}
