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
    /// (the new server got a publish) or refused (the output said so); returns the output's last error
    /// and its report of the request.
    static func reactToReconnectRequest(url: String, policy: RedirectPolicy? = nil, ca: TestCertificateAuthority? = nil,
                                        newServer: HostileRTMPServer) async throws
        -> (moved: Bool, lastError: String?, report: ReconnectRequestReport?) {
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
        let (lastError, report) = (output.status.lastError, output.status.reconnectRequest)
        await output.stop()
        return (moved, lastError, report)
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
        #expect(refused.report?.outcome == .refused && refused.report?.reason?.contains("another host") == true, "\(String(describing: refused.report))")
        #expect(refused.report.map { !$0.target.contains("secret-key") && $0.requestedAtUnixSeconds > 1_700_000_000 } == true,
                "the status says where (key masked) and when: \(String(describing: refused.report))")

        let allowed = try await Self.reactToReconnectRequest(url: url, policy: .any, newServer: newServer)
        let publish = newServer.record.messages.compactMap { try? RTMPCommand($0) }.first { $0.name == "publish" }
        #expect(allowed.moved && publish?.arguments.first == .string("secret-key"), "follow_redirects: any moves: \(allowed.lastError ?? "none")")
        // No frames are fed here, so no keyframe comes to switch at: the move is under way.
        #expect(allowed.report?.outcome == .switching && allowed.report?.target.contains(":\(newServer.port)/") == true,
                "\(String(describing: allowed.report))")
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

    /// The new connection never comes up (its server closes during the handshake): the stream stays on
    /// the old connection, and the status says the request failed.
    @Test func aReconnectRequestWhoseNewConnectionFailsLeavesTheStreamWhereItWas() async throws {
        let newServer = try HostileRTMPServer(.closeDuringHandshake)
        defer { newServer.close() }
        let mover = try HostileRTMPServer(.publishes(.reconnectRequest(tcURL: "rtmp://127.0.0.1:\(newServer.port)/live")))
        defer { mover.close() }
        var configuration = RTMPOutputConfiguration(
            url: try RTMPURL("rtmp://127.0.0.1:\(mover.port)/live/secret-key"),
            stream: RTMPStreamDescription(codec: .h264, width: 640, height: 360, framesPerSecond: 30, videoBitrateBitsPerSecond: 1_000_000))
        configuration.reconnect = ReconnectPolicy(initialDelaySeconds: 0.1, maximumDelaySeconds: 0.2)
        let output = RTMPOutput(configuration: configuration)
        try await output.start(OutputStartContext())
        let failed = await eventually(within: 20) { output.status.reconnectRequest?.outcome == .failed }
        let status = output.status
        await output.stop()
        #expect(failed && newServer.connectionCount >= 1, "the new connection was tried and failed: \(String(describing: status.reconnectRequest))")
        #expect(status.state == .running && mover.connectionCount == 1, "the stream stayed on its connection: \(status.state), \(mover.connectionCount) connections")
    }
}
