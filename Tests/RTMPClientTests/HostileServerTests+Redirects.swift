import Foundation
import Output
import RTMP
import RTMPClient
import Testing
import TestSupport

/// Enhanced RTMP's ReconnectRequest names a new `tcUrl`; following it takes the stream key along.
/// The key goes to another host only with `follow_redirects: any`, and never from rtmps:// to
/// rtmp://. "localhost" names another host than the configured 127.0.0.1 (both reach the test's
/// servers); the server asked to take over records whether a publish (with the key) arrived.
extension HostileServerTests {
    /// Publishes to `server` at `url` until the output has reacted to its ReconnectRequest: moved
    /// (the new server got a publish) or refused (the output said so); returns the output's last error.
    static func reactToReconnectRequest(url: String, policy: RedirectPolicy? = nil, ca: TestCertificateAuthority? = nil,
                                        newServer: HostileRTMPServer) async throws -> (moved: Bool, lastError: String?) {
        var configuration = RTMPOutputConfiguration(
            url: try RTMPURL(url),
            stream: RTMPStreamDescription(codec: .h264, width: 640, height: 360, framesPerSecond: 30, videoBitrateBitsPerSecond: 1_000_000))
        configuration.caCertificatesPath = ca?.caCertificatePath
        configuration.reconnect = ReconnectPolicy(initialDelaySeconds: 0.1, maximumDelaySeconds: 0.2)
        if let policy { configuration.followRedirects = policy }
        let output = RTMPOutput(configuration: configuration)
        try await output.start(OutputStartContext())
        let published = { newServer.record.messages.contains { (try? RTMPCommand($0))?.name == "publish" } }
        _ = await eventually(within: 20) { published() || output.status.lastError?.contains("reconnect request") == true }
        let moved = published()
        let lastError = output.status.lastError
        await output.stop()
        return (moved, lastError)
    }

    @Test func aReconnectRequestToAnotherHostIsFollowedOnlyWhenAllowed() async throws {
        let newServer = try HostileRTMPServer(.publishes(.streamIDWithoutNull))
        defer { newServer.close() }
        let mover = try HostileRTMPServer(.publishes(.reconnectRequest(tcURL: "rtmp://localhost:\(newServer.port)/live")))
        defer { mover.close() }
        let url = "rtmp://127.0.0.1:\(mover.port)/live/secret-key"

        let refused = try await Self.reactToReconnectRequest(url: url, newServer: newServer)
        #expect(!refused.moved && newServer.connectionCount == 0, "the key went to another host: \(newServer.connectionCount) connections")
        #expect(refused.lastError?.contains("follow_redirects: any") == true, "\(refused.lastError ?? "none")")

        let allowed = try await Self.reactToReconnectRequest(url: url, policy: .any, newServer: newServer)
        let publish = newServer.record.messages.compactMap { try? RTMPCommand($0) }.first { $0.name == "publish" }
        #expect(allowed.moved && publish?.arguments.first == .string("secret-key"), "follow_redirects: any moves: \(allowed.lastError ?? "none")")
    }

    @Test func aReconnectRequestToAnotherPortOfTheSameHostIsFollowed() async throws {
        let newServer = try HostileRTMPServer(.publishes(.streamIDWithoutNull))
        defer { newServer.close() }
        let mover = try HostileRTMPServer(.publishes(.reconnectRequest(tcURL: "rtmp://127.0.0.1:\(newServer.port)/live")))
        defer { mover.close() }
        let result = try await Self.reactToReconnectRequest(url: "rtmp://127.0.0.1:\(mover.port)/live/secret-key", newServer: newServer)
        #expect(result.moved, "\(result.lastError ?? "none")")
    }

    @Test func aReconnectRequestFromRTMPSToRTMPIsNeverFollowed() async throws {
        let ca = try TestCertificateAuthority()
        let newServer = try HostileRTMPServer(.publishes(.streamIDWithoutNull))
        defer { newServer.close() }
        let mover = try HostileRTMPServer(.publishes(.reconnectRequest(tcURL: "rtmp://localhost:\(newServer.port)/live")), tls: ca)
        defer { mover.close() }
        let result = try await Self.reactToReconnectRequest(url: "rtmps://localhost:\(mover.port)/live/secret-key", policy: .any, ca: ca,
                                                           newServer: newServer)
        #expect(mover.record.messages.contains { (try? RTMPCommand($0))?.name == "publish" }, "published over rtmps first: \(result.lastError ?? "none")")
        #expect(!result.moved && newServer.connectionCount == 0, "the key went over plain rtmp: \(newServer.connectionCount) connections")
        #expect(result.lastError?.contains("TLS") == true, "\(result.lastError ?? "none")")
    }
}
