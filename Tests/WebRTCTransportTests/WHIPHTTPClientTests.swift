import Foundation
import NIOCore
import NIOPosix
import Testing
@testable import WebRTCTransport

/// The WHIP client's HTTP requests end in bounded time with an error that says what happened,
/// against the faults a real WHIP server cannot be asked to produce: a listener that never
/// answers, and a port where nothing listens.
@Suite struct WHIPHTTPClientTests {
    static let group = MultiThreadedEventLoopGroup.singleton

    @Test func aSilentServerTimesOut() async throws {
        // Accepts connections and never reads or writes.
        let silent = try await ServerBootstrap(group: Self.group).bind(host: "127.0.0.1", port: 0).get()
        defer { silent.close(promise: nil) }
        let url = try WHIPURL("http://127.0.0.1:\(silent.localAddress?.port ?? 0)/whip/cam")
        let started = ContinuousClock.now
        await #expect(throws: WHIPError.timedOut(method: "POST", seconds: 0.5)) {
            try await WHIPHTTPClient(timeoutSeconds: 0.5).send(WHIPExchange.offer("v=0\r\n", to: url, bearerToken: nil),
                                                               on: Self.group.next()).get()
        }
        #expect(ContinuousClock.now - started < .seconds(3))
    }

    @Test func nothingListeningIsAConnectionFailure() async throws {
        let closed = try await DatagramBootstrap(group: Self.group).bind(host: "127.0.0.1", port: 0).get()
        let port = closed.localAddress?.port ?? 0
        try await closed.close()
        let url = try WHIPURL("http://127.0.0.1:\(port)/whip/cam")
        do {
            _ = try await WHIPHTTPClient(timeoutSeconds: 2).send(WHIPExchange.delete(
                WHIPSessionResource(url: url, answer: "", iceServers: [], etag: nil), bearerToken: nil), on: Self.group.next()).get()
            Issue.record("a request to a closed port succeeded")
        } catch let error as WHIPError {
            guard case .connectionFailed(let host, let failedPort, _) = error else { Issue.record("\(error)"); return }
            #expect(host == "127.0.0.1" && failedPort == port)
            #expect(error.isRetryable && error.description.contains("server is running"))
        }
    }
}
