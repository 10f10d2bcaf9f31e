import Config
import Foundation
import Hummingbird
import HummingbirdTesting
import Engine
import Server
import Testing
import TestSupport

/// The HTTP API through Hummingbird's router test client, against a real test-pattern pipeline.
@Suite(.serialized) struct APIRouteTests {
    /// JSON bodies say so: a body without a type gets 415 (``HostileClientTests/bodiesMustBeJSON()``).
    static let json: HTTPFields = [.contentType: "application/json"]

    @Test func healthAndStatusShowAMovingPipeline() async throws {
        try await ServerFixture.run { client, _, _ in
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            let moving = try await eventually {
                try await client.execute(uri: "/api/status", method: .get) { response in
                    let status = try ServerFixture.decode(StatusReport.self, response)
                    guard let camera = status.cameras.first else { return false }
                    return camera.framesEncoded > 10 && camera.captureFps > 5 && camera.bitrateBitsPerSecond > 0 && status.process.residentBytes > 0
                }
            }
            #expect(moving)
            try await client.execute(uri: "/api/cameras/cam0", method: .get) { response in
                let camera = try ServerFixture.decode(CameraReport.self, response)
                #expect(camera.state == "running" && camera.width == 320 && camera.outputs.first?.id == "record")
                #expect(camera.outputs.first?.state == "running")
            }
        }
    }

    @Test func tokenGuardsEverythingButHealth() async throws {
        try await ServerFixture.run(token: Secret(origin: "inline", value: "t0ken")) { client, _, _ in
            try await client.execute(uri: "/healthz", method: .get) { #expect($0.status == .ok) }
            for uri in ["/api/status", "/metrics", "/api/cameras/cam0/snapshot.jpg"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .unauthorized, "\(uri)")
                    #expect(ServerFixture.errorMessage(response)?.contains("Bearer") == true)
                }
            }
            try await client.execute(uri: "/api/status", method: .get, headers: [.authorization: "Bearer wrong"]) { #expect($0.status == .unauthorized) }
            try await client.execute(uri: "/api/status", method: .get, headers: [.authorization: "Bearer t0ken"]) { #expect($0.status == .ok) }
        }
    }

    @Test func stopAndStartAnOutput() async throws {
        try await ServerFixture.run { client, _, directory in
            let recording = try await eventually {
                try await client.execute(uri: "/api/cameras/cam0", method: .get) { try ServerFixture.decode(CameraReport.self, $0).outputs.first?.framesSent ?? 0 > 5 }
            }
            #expect(recording)
            try await client.execute(uri: "/api/cameras/cam0", method: .get) { response in
                let output = try ServerFixture.decode(CameraReport.self, response).outputs.first
                #expect(output?.files == [directory + "/cam0.mp4"], "the recording names the file it writes: \(String(describing: output?.files))")
            }
            try await client.execute(uri: "/api/cameras/cam0/outputs/record/stop", method: .post) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/cameras/cam0", method: .get) { response in
                let camera = try ServerFixture.decode(CameraReport.self, response)
                #expect(camera.outputs.first?.state == "stopped")
            }
            let size = (try FileManager.default.attributesOfItem(atPath: directory + "/cam0.mp4")[.size] as? Int) ?? 0
            #expect(size > 0, "the stopped recording was finalized")
            try await client.execute(uri: "/api/cameras/cam0/outputs/record/start", method: .post) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/cameras/cam0", method: .get) { response in
                let camera = try ServerFixture.decode(CameraReport.self, response)
                #expect(camera.outputs.first?.state == "running")
            }
            try await client.execute(uri: "/api/cameras/cam0/outputs/nope/stop", method: .post) { response in
                #expect(response.status == .notFound)
                #expect(ServerFixture.errorMessage(response) == "camera 'cam0' has no output 'nope'")
            }
        }
    }

    @Test func bitrateKeyframeAndSwitch() async throws {
        try await ServerFixture.run { client, _, _ in
            try await client.execute(uri: "/api/cameras/cam0/bitrate", method: .post, headers: Self.json, body: ByteBuffer(string: #"{"bitrate":"500k"}"#)) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/cameras/cam0", method: .get) { response in
                let camera = try ServerFixture.decode(CameraReport.self, response)
                #expect(camera.targetBitrateBitsPerSecond == 500_000)
            }
            let before = try await client.execute(uri: "/api/cameras/cam0", method: .get) { try ServerFixture.decode(CameraReport.self, $0).keyFrames }
            try await client.execute(uri: "/api/cameras/cam0/keyframe", method: .post) { #expect($0.status == .ok) }
            let more = try await eventually(within: 5) {
                try await client.execute(uri: "/api/cameras/cam0", method: .get) { try ServerFixture.decode(CameraReport.self, $0).keyFrames > before }
            }
            #expect(more)
            try await client.execute(uri: "/api/cameras/cam0/source", method: .post, headers: Self.json, body: ByteBuffer(string: #"{"source":"testpattern"}"#)) { #expect($0.status == .ok) }
        }
    }

    /// (method, uri, body, status, message fragment): bad requests get 4xx with a JSON error.
    @Test func badRequestsGetJSONErrors() async throws {
        let cases: [(HTTPRequest.Method, String, String?, HTTPResponse.Status, String)] = [
            (.post, "/api/cameras/cam0/bitrate", #"{"bitrate":"fast"}"#, .badRequest, "invalid bitrate 'fast'"),
            (.post, "/api/cameras/cam0/bitrate", #"{"bitrate":"#, .badRequest, "not valid JSON"),
            (.post, "/api/cameras/cam0/bitrate", #"{"rate":"1M"}"#, .badRequest, "missing key 'bitrate'"),
            (.post, "/api/cameras/cam0/bitrate", #"{"bitrate":"10k"}"#, .badRequest, "below 50k"),
            (.post, "/api/cameras/cam0/source", #"{"source":"bogus"}"#, .badRequest, "bogus"),
            (.get, "/api/cameras/cam9", nil, .notFound, "no camera 'cam9'"),
            (.post, "/api/cameras/cam9/keyframe", nil, .notFound, "no camera 'cam9'"),
            (.get, "/api/cameras/cam0/controls", nil, .conflict, "has no controls"),
            (.get, "/api/nothing", nil, .notFound, "no route"),
        ]
        try await ServerFixture.run { client, _, _ in
            for (method, uri, body, status, fragment) in cases {
                try await client.execute(uri: uri, method: method, headers: body == nil ? [:] : Self.json, body: body.map { ByteBuffer(string: $0) }) { response in
                    #expect(response.status == status, "\(method) \(uri)")
                    #expect(ServerFixture.errorMessage(response)?.contains(fragment) == true, "\(uri): \(String(buffer: response.body))")
                }
            }
        }
    }

    @Test func snapshotIsAJPEG() async throws {
        try await ServerFixture.run { client, _, _ in
            try await client.execute(uri: "/api/cameras/cam0/snapshot.jpg", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(Array(response.body.readableBytesView.prefix(2)) == [0xFF, 0xD8])
            }
        }
    }

    @Test func metricsInPrometheusFormat() async throws {
        let names = [#"livepush_capture_frames_per_second{camera="cam0"}"#, #"livepush_stage_latency_seconds_bucket{camera="cam0",stage="capture_to_encoded""#,
                     #"livepush_dropped_frames_total{camera="cam0",reason="encoder"}"#, "process_resident_memory_bytes",
                     // An output's drops by where: its hand-off queue, its socket's backlog.
                     #"livepush_dropped_frames_total{camera="cam0",reason="output:record"} 0"#,
                     #"livepush_dropped_frames_total{camera="cam0",reason="output:record:socket"} 0"#,
                     "# TYPE process_cpu_seconds_total counter", "# TYPE livepush_encoded_frames_total counter",
                     #"livepush_output_up{camera="cam0",output="record",kind="record"} 1"#,
                     #"livepush_encoder_queued_frames{camera="cam0"}"#]
        try await ServerFixture.run { client, _, _ in
            // Scraped until the camera has encoded and its output is up (bounded), however long a busy machine takes.
            var text = ""
            _ = try await eventually {
                text = try await Self.scrapeMetrics(client)
                return names.allSatisfy(text.contains)
            }
            for name in names { #expect(text.contains(name), "missing \(name)") }
        }
    }

    static func scrapeMetrics(_ client: some TestClientProtocol) async throws -> String {
        try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
    }

    /// A live scrape passes Prometheus' own linter (counters end in _total, help on every metric, units in names).
    @Test func metricsPassPromtool() async throws {
        try ExternalTool.require("promtool")
        let directory = try TemporaryDirectory()
        let path = directory.file("metrics.txt")
        try await ServerFixture.run { client, _, _ in
            // A scrape once the camera encodes and its output is up, with every metric family present.
            var text = ""
            _ = try await eventually {
                text = try await Self.scrapeMetrics(client)
                return text.contains(#"livepush_output_up{camera="cam0",output="record",kind="record"} 1"#)
            }
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let check = try ExternalTool.run("sh", ["-c", "promtool check metrics < '\(path)'"], timeoutSeconds: 30, check: false)
        #expect(check.status == 0, "promtool: \(check.output)\(check.errorOutput)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("# TYPE livepush_output_sent_bytes_total gauge") && text.contains("# TYPE livepush_dropped_frames_total counter"))
    }

    @Test func dashboardAndOpenAPIAreServed() async throws {
        try await ServerFixture.run { client, _, _ in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("livepush"))
            }
            try await client.execute(uri: "/openapi.yaml", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("/api/cameras/{id}/snapshot.jpg"))
            }
        }
    }
}
