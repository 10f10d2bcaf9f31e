import Config
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// What a web page the operator visits (or any other client) must not get from the API: state
/// changes from another origin, form or text bodies, and file paths as camera sources.
@Suite(.serialized) struct HostileClientTests {
    static let stateChanges = ["/api/cameras/cam0/keyframe", "/api/cameras/cam0/outputs/record/stop", "/api/cameras/cam0/outputs/record/start"]

    @Test func crossSitePostsAreRefusedAndTheDashboardsOwnAreNot() async throws {
        try await ServerFixture.run { client, _, _ in
            for uri in Self.stateChanges {
                try await client.execute(uri: uri, method: .post, headers: [.origin: "http://evil.example"]) { response in
                    #expect(response.status == .forbidden, "\(uri)")
                    #expect(ServerFixture.errorMessage(response)?.contains("cross-site request refused") == true, "\(uri)")
                }
            }
            // A simple POST (text/plain needs no CORS preflight) from another site.
            try await client.execute(uri: "/api/cameras/cam0/bitrate", method: .post,
                                     headers: [.origin: "http://evil.example", .contentType: "text/plain"],
                                     body: ByteBuffer(string: #"{"bitrate":"100k"}"#)) { #expect($0.status == .forbidden) }
            // The router's own origin (the test client's authority is localhost).
            try await client.execute(uri: "/api/cameras/cam0/keyframe", method: .post, headers: [.origin: "http://localhost"]) { #expect($0.status == .ok) }
            // No Origin: not a browser (curl, scripts).
            try await client.execute(uri: "/api/cameras/cam0/keyframe", method: .post) { #expect($0.status == .ok) }
            // Reading stays open to GETs from anywhere the Host check lets through.
            try await client.execute(uri: "/api/status", method: .get, headers: [.origin: "http://evil.example"]) { #expect($0.status == .ok) }
        }
    }

    @Test func bodiesMustBeJSON() async throws {
        try await ServerFixture.run { client, _, _ in
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
                try await client.execute(uri: "/api/cameras/cam0/bitrate", method: .post, headers: [.contentType: type],
                                         body: ByteBuffer(string: #"{"bitrate":"400k"}"#)) { response in
                    #expect(response.status == .unsupportedMediaType, "\(type)")
                    #expect(ServerFixture.errorMessage(response)?.contains("application/json") == true)
                }
            }
            // Spellings of the path the router folds into the same route, and a body without a type.
            for (uri, headers): (String, HTTPFields) in [("//api/cameras/cam0/bitrate", [.contentType: "text/plain"]),
                                                         ("/api//cameras//cam0/bitrate", [.contentType: "text/plain"]),
                                                         ("//API/cameras/cam0/bitrate", [.contentType: "text/plain"]),
                                                         ("/api/cameras/cam0/bitrate", [:]), ("//api/cameras/cam0/bitrate", [:])] {
                try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: #"{"bitrate":"400k"}"#)) { response in
                    #expect(response.status == .unsupportedMediaType, "\(uri) \(headers)")
                }
            }
            try await client.execute(uri: "/api/cameras/cam0/bitrate", method: .post, headers: [.contentType: "application/json"],
                                     body: ByteBuffer(string: #"{"bitrate":"400k"}"#)) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/cameras/cam0/keyframe", method: .post) { #expect($0.status == .ok, "no body needs no type") }
            // Bodies are read up to 64 KiB: a client cannot make the server hold more.
            let padding = String(repeating: " ", count: 100_000)
            try await client.execute(uri: "/api/cameras/cam0/bitrate", method: .post, headers: [.contentType: "application/json"],
                                     body: ByteBuffer(string: #"{"bitrate":"400k"\#(padding)}"#)) { #expect($0.status == .contentTooLarge) }
        }
    }

    /// Bounded fuzz of the JSON bodies: random bytes and mutated valid bodies get a 4xx with a
    /// message, never a 5xx, a crash or a hang; the camera keeps encoding.
    @Test func fuzzedBodiesGetClientErrors() async throws {
        var random = SplitMix64(seed: 0x6C69_7665_7075_7368)
        let valid = ["/api/cameras/cam0/bitrate": #"{"bitrate":"400k"}"#, "/api/cameras/cam0/source": #"{"source":"testpattern"}"#,
                     "/api/cameras/cam0/controls": #"{"name":"brightness","value":"1"}"#]
        let cases = (0..<300).map { round -> (uri: String, bytes: [UInt8]) in
            let (uri, body) = valid.sorted { $0.key < $1.key }[round % valid.count]
            var bytes = Array(body.utf8)
            if round % 3 == 0 {
                bytes = (0..<Int(random.next() % 64)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            } else {
                for _ in 0..<(1 + Int(random.next() % 3)) where !bytes.isEmpty {
                    bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                }
            }
            return (uri, bytes)
        }
        try await ServerFixture.run { client, broadcaster, _ in
            for (uri, bytes) in cases {
                try await client.execute(uri: uri, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(bytes: bytes)) { response in
                    let code = response.status.code
                    #expect(code == 200 || (400..<500).contains(code), "\(uri) \(String(decoding: bytes, as: UTF8.self)): \(response.status)")
                    if code != 200 { #expect(ServerFixture.errorMessage(response)?.isEmpty == false, "\(uri): no message") }
                }
            }
            #expect(await broadcaster.framesEncoded > 0)
        }
    }

    /// An idle on-demand camera stays idle for a snapshot another site's page asks for (an `<img>`
    /// on a page the operator visits): it gets a grey card, at once; the dashboard's own snapshot
    /// wakes the camera, and later cross-site ones get that last picture.
    @Test func snapshotsForOtherSitesDoNotWakeAnIdleCamera() async throws {
        try await ServerFixture.run(configure: { config in config.cameras[0].onDemand = OnDemandConfig(idleSeconds: 0.5) }) { client, broadcaster, _, _ in
            let runtime = try await broadcaster.camera(ServerFixture.cameraID)
            let snapshot = "/api/cameras/cam0/snapshot.jpg"
            try await client.execute(uri: "/api/cameras/cam0/outputs/record/stop", method: .post) { #expect($0.status == .ok) }
            #expect(await eventually { runtime.report().state == "idle" }, "\(runtime.report().state)")
            let starts = runtime.report().onDemand?.starts
            var cards: [[UInt8]] = []
            for site in ["cross-site", "same-site", "CROSS-SITE"] {
                try await client.execute(uri: snapshot, method: .get, headers: [HTTPField.Name("Sec-Fetch-Site")!: site]) { response in
                    #expect(response.status == .ok, "\(site)")
                    #expect(Array(response.body.readableBytesView.prefix(2)) == [0xFF, 0xD8], "a JPEG")
                    cards.append(Array(response.body.readableBytesView))
                }
                #expect(runtime.report().state == "idle" && runtime.report().onDemand?.starts == starts, "\(site): the camera stayed idle")
            }
            #expect(Set(cards).count == 1, "the same card each time")
            var live: [UInt8] = []
            try await client.execute(uri: snapshot, method: .get, headers: [HTTPField.Name("Sec-Fetch-Site")!: "same-origin"]) { response in
                #expect(response.status == .ok)
                live = Array(response.body.readableBytesView)
            }
            #expect(runtime.report().onDemand?.starts == starts.map { $0 + 1 }, "the dashboard's own snapshot woke the camera")
            #expect(live != cards[0], "a picture, not the card")
            #expect(await eventually { runtime.report().state == "idle" })
            try await client.execute(uri: snapshot, method: .get, headers: [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]) { response in
                #expect(Array(response.body.readableBytesView) == live, "the last picture taken")
            }
        }
    }

    /// (source, accepted): never a path the client names, nor a camera this machine does not have
    /// (the tests run without cameras; ``APISourcePolicyTests`` checks the names that pass).
    @Test(arguments: [("file:/etc/passwd", false), ("file:/dev/zero?loop", false), ("/etc/passwd", false), ("/dev/video0/../../etc/passwd", false),
                      ("/dev/v4l/by-id/../../../etc/shadow", false), ("/dev/sda", false), ("/dev/v4l/by-path/..", false),
                      ("/dev/v4l/by-path/pci-0000:00:14.0-usb-0:1:1.0-video-index0", false), ("/dev/video7", false), ("camera:9", false),
                      ("testpattern:busy", true), ("testpattern", true)])
    func sourcesOverTheAPIAreNeverPaths(source: String, accepted: Bool) async throws {
        try await ServerFixture.run { client, _, _ in
            try await client.execute(uri: "/api/cameras/cam0/source", method: .post, headers: [.contentType: "application/json"],
                                     body: ByteBuffer(string: #"{"source":"\#(source)"}"#)) { response in
                #expect((response.status == .ok) == accepted, "\(source): \(response.status) \(ServerFixture.errorMessage(response) ?? "")")
                if !accepted { #expect(ServerFixture.errorMessage(response)?.isEmpty == false) }
            }
        }
    }
}
