import Config
import Engine
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Server
import Testing
import TestSupport

/// `POST /api/cameras/{id}/viewer-latency` against the real router: a viewer's consented report
/// reaches `/api/status` and `/metrics`; no role, no consent, a bad body, another site or too many
/// reports from one address is refused, and nothing is recorded.
@Suite(.serialized) struct ViewerLatencyRoutesTests {
    static let uri = "/api/cameras/cam0/viewer-latency"

    static func withWHEP(_ config: inout LivepushConfig) {
        AccessRoleTests.tokens(&config)
        config.cameras[0].outputs.append(OutputConfig(id: "whep", settings: .whep(maxViewers: 4)))
    }

    static func report(consent: String = "true", viewer: String = "page1", latencies: String = "[41.5, 43, 39.9]") -> String {
        #"{"consent": \#(consent), "viewer": "\#(viewer)", "clock": "capture_time", "latencies_ms": \#(latencies)}"#
    }

    static func post(_ client: some TestClientProtocol, _ body: String, uri: String = uri, token: Secret? = AccessRoleTests.viewer,
                     headers: HTTPFields = [.contentType: "application/json"]) async throws -> TestResponse {
        var headers = headers
        if let token { headers[.authorization] = "Bearer \(token.value)" }
        return try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    static func whepReport(_ client: some TestClientProtocol) async throws -> OutputReport? {
        let response = try await client.execute(uri: "/api/status", method: .get, headers: AccessRoleTests.bearer(AccessRoleTests.admin))
        return try ServerFixture.decode(StatusReport.self, response).cameras.first?.outputs.first { $0.id == "whep" }
    }

    static func histogramCount(_ client: some TestClientProtocol) async throws -> String? {
        let response = try await client.execute(uri: "/metrics", method: .get, headers: AccessRoleTests.bearer(AccessRoleTests.viewer))
        return String(buffer: response.body).split(separator: "\n")
            .first { $0.hasPrefix("livepush_viewer_latency_seconds_count{") && $0.contains(#"output="whep""#) }
            .flatMap { $0.split(separator: " ").last.map(String.init) }
    }

    @Test func aViewersConsentedReportReachesTheStatusAndTheHistogram() async throws {
        try await ServerFixture.run(configure: Self.withWHEP) { client, _, _, _ in
            #expect(try await Self.whepReport(client)?.viewerLatency == nil, "no viewer reported yet")
            #expect(try await Self.post(client, Self.report()).status == .noContent)
            #expect(try await Self.post(client, Self.report(viewer: "page2", latencies: "[60]"), token: AccessRoleTests.admin).status == .noContent,
                    "the admin watches too")
            let summary = try #require(try await Self.whepReport(client)?.viewerLatency)
            #expect(summary.viewersReporting == 2 && summary.samples == 4, "\(summary)")
            #expect(summary.p50Milliseconds == 43 && summary.p99Milliseconds == 60 && summary.lastMilliseconds == 60, "\(summary)")
            #expect(try await Self.histogramCount(client) == "4")
        }
    }

    @Test func withoutTheViewersRoleOrConsentNothingIsRecorded() async throws {
        try await ServerFixture.run(configure: Self.withWHEP) { client, _, _, _ in
            #expect(try await Self.post(client, Self.report(), token: nil).status == .unauthorized)
            #expect(try await Self.post(client, Self.report(), token: Secret(origin: "inline", value: "0dd4784c5540af6cbbdc9ccd5d338f2b")).status == .unauthorized)
            let refused = try await Self.post(client, Self.report(consent: "false"))
            #expect(refused.status == .forbidden)
            #expect(ServerFixture.errorMessage(refused)?.contains("consent") == true)
            let noFlag = #"{"viewer": "page1", "clock": "capture_time", "latencies_ms": [40]}"#
            #expect(try await Self.post(client, noFlag).status == .badRequest, "the consent flag is required")
            #expect(try await Self.whepReport(client)?.viewerLatency == nil)
            #expect(try await Self.histogramCount(client) == nil)
        }
    }

    @Test(arguments: [
        ("not json", HTTPResponse.Status.badRequest),
        (#"{"consent": true, "viewer": "page1", "clock": "capture_time", "latencies_ms": "40"}"#, .badRequest),
        (ViewerLatencyRoutesTests.report(latencies: "[-3]"), .badRequest),
        (ViewerLatencyRoutesTests.report(latencies: "[1e9]"), .badRequest),
        (ViewerLatencyRoutesTests.report(latencies: "[]"), .badRequest),
        (ViewerLatencyRoutesTests.report(latencies: "[" + Array(repeating: "1", count: 301).joined(separator: ",") + "]"), .badRequest),
        (ViewerLatencyRoutesTests.report(viewer: "../../etc"), .badRequest),
        (#"{"consent": true, "viewer": "page1", "clock": "wall", "latencies_ms": [40]}"#, .badRequest),
        (ViewerLatencyRoutesTests.report(latencies: "[" + Array(repeating: "1.000000000", count: 900).joined(separator: ",") + "]"), .contentTooLarge),
    ])
    func badBodiesAreRefused(body: String, status: HTTPResponse.Status) async throws {
        try await ServerFixture.run(configure: Self.withWHEP) { client, _, _, _ in
            let response = try await Self.post(client, body)
            #expect(response.status == status, "\(body.prefix(120))")
            #expect(try await Self.whepReport(client)?.viewerLatency == nil)
        }
    }

    @Test func anotherSiteOrAFormCannotReport() async throws {
        try await ServerFixture.run(configure: Self.withWHEP) { client, _, _, _ in
            let crossSite = try await Self.post(client, Self.report(), headers: [.contentType: "application/json", .origin: "http://evil.example"])
            #expect(crossSite.status == .forbidden)
            #expect(try await Self.post(client, Self.report(), headers: [.contentType: "text/plain"]).status == .unsupportedMediaType)
            #expect(try await Self.whepReport(client)?.viewerLatency == nil)
        }
    }

    @Test func aCameraWithoutWHEPHasNoViewersToReport() async throws {
        try await ServerFixture.run(configure: AccessRoleTests.tokens) { client, _, _, _ in
            let noWHEP = try await Self.post(client, Self.report())
            #expect(noWHEP.status == .notFound)
            #expect(ServerFixture.errorMessage(noWHEP)?.contains("whep") == true)
            #expect(try await Self.post(client, Self.report(), uri: "/api/cameras/nope/viewer-latency").status == .notFound)
        }
    }

    @Test func reportsAreRateLimitedPerAddress() async throws {
        try await ServerFixture.run(configure: Self.withWHEP) { client, _, _, _ in
            for attempt in 1...30 {
                #expect(try await Self.post(client, Self.report(viewer: "page\(attempt % 3)")).status == .noContent, "report \(attempt)")
            }
            let limited = try await Self.post(client, Self.report())
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] == "60")
            #expect(try await Self.histogramCount(client) == "90", "the refused report was not recorded")
        }
    }
}
