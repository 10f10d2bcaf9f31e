import Foundation
import Output
import Testing
import TestSupport
import WebRTCTransport

/// Where a WHIP output's bearer token goes when the endpoint moves it (`follow_redirects`): a 307
/// to another host is not followed unless the output allows any host, a 307 from https to http is
/// never followed, and a session `Location` on another host gets its DELETE without the token.
/// Endpoints are Peers/whip_redirect_endpoint.py on 127.0.0.1; "localhost" names another host.
@Suite(.serialized, .timeLimit(.minutes(2))) struct WHIPRedirectTests {
    static let token = "whip-redirect-token-3c9e71"

    /// One endpoint process and the requests it recorded.
    final class Endpoint {
        let process: BackgroundProcess
        let port: Int
        let recordFile: String

        init(_ mode: String, target: String = "-", tls: TestCertificateAuthority? = nil, in directory: TemporaryDirectory) throws {
            recordFile = directory.file("\(mode)-\(UUID().uuidString).jsonl")
            let script = "\(PythonPeers.scripts)/whip_redirect_endpoint.py"
            let arguments = [script, recordFile, mode, target] + (tls.map { ["--tls", $0.serverCertificatePath, $0.serverKeyPath] } ?? [])
            let process = try BackgroundProcess("python3", arguments)
            self.process = process
            guard process.waitUntil(timeoutSeconds: 15, { process.output.contains("listening ") }),
                  let port = process.output.split(separator: " ").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
                throw LoopbackNamespace.Failure(description: "the endpoint did not start: \(process.errorOutput)")
            }
            self.port = port
        }

        var requests: [[String: Any]] {
            let text = (try? String(contentsOfFile: recordFile, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
    }

    static func output(_ url: String, policy: RedirectPolicy? = nil, ca: TestCertificateAuthority? = nil) async throws -> WHIPOutput {
        var configuration = WHIPOutputConfiguration(endpoint: try WHIPURL(url), bearerToken: token)
        configuration.caCertificatesPath = ca?.caCertificatePath
        configuration.requestTimeoutSeconds = 5
        configuration.reconnect = ReconnectPolicy(initialDelaySeconds: 0.2, maximumDelaySeconds: 0.5)
        if let policy { configuration.followRedirects = policy }
        let output = try WHIPOutput(configuration: configuration)
        try await output.start(OutputStartContext())
        return output
    }

    @Test func aRedirectToAnotherHostIsFollowedOnlyWhenAllowed() async throws {
        let directory = try TemporaryDirectory()
        let elsewhere = try Endpoint("record", in: directory)
        let mover = try Endpoint("redirect", target: "http://localhost:\(elsewhere.port)/whip/cam", in: directory)

        let refusing = try await Self.output("http://127.0.0.1:\(mover.port)/whip/cam")
        let refused = await eventually(within: 20) { refusing.status.state == .failed }
        let status = refusing.status
        await refusing.stop()
        #expect(refused, "\(status.state): \(status.lastError ?? "none")")
        #expect(status.lastError?.contains("follow_redirects: any") == true, "the error says how to allow it: \(status.lastError ?? "none")")
        #expect(elsewhere.requests.isEmpty, "the token went to another host: \(elsewhere.requests)")

        let following = try await Self.output("http://127.0.0.1:\(mover.port)/whip/cam", policy: .any)
        let arrived = await eventually(within: 20) { elsewhere.requests.contains { $0["method"] as? String == "POST" } }
        await following.stop()
        let post = elsewhere.requests.first { $0["method"] as? String == "POST" }
        #expect(arrived && post?["authorization"] as? String == "Bearer \(Self.token)", "follow_redirects: any follows with the token: \(elsewhere.requests)")
    }

    @Test func aRedirectFromHTTPSToHTTPIsNeverFollowed() async throws {
        let directory = try TemporaryDirectory()
        let ca = try TestCertificateAuthority()
        let plain = try Endpoint("record", in: directory)
        let mover = try Endpoint("redirect", target: "http://127.0.0.1:\(plain.port)/whip/cam", tls: ca, in: directory)
        let output = try await Self.output("https://127.0.0.1:\(mover.port)/whip/cam", policy: .any, ca: ca)
        let refused = await eventually(within: 20) { output.status.state == .failed }
        let status = output.status
        await output.stop()
        #expect(mover.requests.first?["authorization"] as? String == "Bearer \(Self.token)", "the https endpoint got the POST: \(mover.requests)")
        #expect(refused && status.lastError?.contains("TLS") == true, "\(status.state): \(status.lastError ?? "none")")
        #expect(plain.requests.isEmpty, "the token went over plain http: \(plain.requests)")
    }

    @Test func aSessionLocationOnAnotherHostGetsNoToken() async throws {
        let directory = try TemporaryDirectory()
        let elsewhere = try Endpoint("record", in: directory)
        let creator = try Endpoint("location", target: "http://localhost:\(elsewhere.port)/whip/cam/session/1", in: directory)
        let output = try await Self.output("http://127.0.0.1:\(creator.port)/whip/cam")
        // The answer holds no media: the session is dropped, and a DELETE goes to its Location.
        let deleted = await eventually(within: 30) { elsewhere.requests.contains { $0["method"] as? String == "DELETE" } }
        await output.stop()
        #expect(deleted, "no DELETE reached the Location: \(elsewhere.requests); \(output.status.lastError ?? "none")")
        let authorizations = elsewhere.requests.map { $0["authorization"] as? String ?? "none" }
        #expect(!authorizations.contains("Bearer \(Self.token)"), "the token went to the Location's host: \(elsewhere.requests)")
        #expect(creator.requests.first?["authorization"] as? String == "Bearer \(Self.token)", "the endpoint itself gets it: \(creator.requests)")
    }
}
