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

/// The same checks on a real `livepush serve` reached over TCP by curl, which sends the Host a
/// DNS-rebinding page would.
@Suite(.serialized) struct ServeHostCheckTests {
    @Test func foreignHostsAreRefusedUnlessAllowed() throws {
        let serve = try ServeUnderTest(yaml: "listen: 127.0.0.1:0\nallowed_hosts: [camera.local]\ncameras:\n  - id: cam0\n    size: 320x240\n    fps: 10\n    encoder: {preset: ultrafast}\n")
        let port = serve.port
        let status = "\(serve.baseURL)/api/status"
        #expect(try Curl.status([status]) == "200")
        #expect(try Curl.status(["-H", "Host: localhost:\(port)", status]) == "200")
        #expect(try Curl.status(["-H", "Host: camera.local:\(port)", status]) == "200", "allowed_hosts admits it")
        for uri in [status, "\(serve.baseURL)/api/cameras/cam0/snapshot.jpg"] {
            #expect(try Curl.status(["-H", "Host: evil.example:\(port)", uri]) == "421", "\(uri)")
        }
        let body = try Curl.body(["-H", "Host: evil.example", status])
        #expect(body.contains("allowed_hosts"), "the refusal names the config key: \(body)")
        let keyframe = "\(serve.baseURL)/api/cameras/cam0/keyframe"
        #expect(try Curl.status(["-X", "POST", "-H", "Origin: http://evil.example", keyframe]) == "403")
        #expect(try Curl.status(["-X", "POST", "-H", "Origin: \(serve.baseURL)", keyframe]) == "200")
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
    }

    /// Names a rebinding page can own that look like loopback (`127.` or `localhost` as a prefix)
    /// are refused like any other; loopback literals are parsed, not matched by prefix; a request
    /// without a Host gets 400, not a free pass.
    @Test func rebindingNamesThatLookLikeLoopbackAreRefused() throws {
        let serve = try ServeUnderTest(yaml: "listen: 127.0.0.1:0\ncameras:\n  - id: cam0\n    size: 320x240\n    fps: 10\n    encoder: {preset: ultrafast}\n")
        let port = serve.port
        let status = "\(serve.baseURL)/api/status"
        for name in Self.loopbackLookalikes {
            #expect(try Curl.status(["-H", "Host: \(name):\(port)", status]) == "421", "\(name)")
            #expect(try Curl.status(["-H", "Host: \(name)", "\(serve.baseURL)/api/cameras/cam0/snapshot.jpg"]) == "421", "\(name)")
        }
        for name in ["127.0.0.1", "127.0.0.2", "127.255.255.254", "localhost", "[::1]", "LOCALHOST"] {
            #expect(try Curl.status(["-H", "Host: \(name):\(port)", status]) == "200", "\(name)")
        }
        #expect(try Curl.status(["-H", "Host:", status]) == "400", "no Host header")
        #expect(try Curl.status(["-H", "Host:", "-X", "POST", "\(serve.baseURL)/api/cameras/cam0/keyframe"]) == "400", "no Host header")
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
    }

    /// Names under an attacker's domain that start like loopback, and near-literals that are not
    /// addresses of 127.0.0.0/8 written out in full.
    static let loopbackLookalikes = ["127.evil.example", "127.0.0.1.evil.example", "localhost.evil.example", "127.0.0.1.nip.io",
                                     "127.1", "127.0.0.256", "0127.0.0.1", "127.0.0.01x", "localhost.", "::1.evil.example"]

    /// `stream --web`'s player answers the same way: a rebound name cannot fetch the page or post
    /// a WHEP offer.
    @Test func streamsPlayerRefusesForeignHosts() throws {
        let stream = try BackgroundProcess(try LivepushBinary.path(), ["stream", "--size", "320x240", "--fps", "10", "--preset", "ultrafast",
                                                                        "--web", "127.0.0.1:0", "--duration", "30s"])
        #expect(stream.waitUntil(timeoutSeconds: 20) { stream.output.contains("watch at http://") }, "\(stream.errorOutput.suffix(1000))")
        let line = try #require(stream.output.split(separator: "\n").first { $0.contains("watch at http://") }, "\(stream.output)")
        let port = try #require(line.split(separator: "/").dropFirst(1).first?.split(separator: ":").last.map(String.init), "\(line)")
        let curl = Curl.status
        let player = "http://127.0.0.1:\(port)/player.html"
        #expect(try curl([player]) == "200")
        #expect(try curl(["-H", "Host: evil.example:\(port)", player]) == "421")
        for name in Self.loopbackLookalikes {
            #expect(try curl(["-H", "Host: \(name):\(port)", player]) == "421", "\(name)")
        }
        #expect(try curl(["-X", "POST", "-H", "Host: evil.example", "-H", "Content-Type: application/sdp", "--data", "v=0", "http://127.0.0.1:\(port)/whep"]) == "421")
        stream.kill(signal: SIGINT)
        #expect(stream.wait(timeoutSeconds: 15) == 0, "\(stream.errorOutput.suffix(1000))")
    }
}

/// `stream --web` beyond loopback needs a WHEP token: without one it refuses at once, naming the flag.
@Suite struct StreamWebExposureTests {
    @Test func aPublicPlayerNeedsAToken() throws {
        let run = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--size", "320x240", "--fps", "10", "--preset", "ultrafast",
                                                                    "--web", "0.0.0.0:0", "--duration", "5s"], timeoutSeconds: 30, check: false)
        #expect(run.status != 0, "\(run.output) \(run.errorOutput)")
        #expect(run.errorOutput.contains("refusing to serve --web on 0.0.0.0:0 without a token") && run.errorOutput.contains("--whep-token"),
                "\(run.errorOutput)")
    }

    /// `--whep-token` is held to the config's rule for tokens: a guessable one is refused at once,
    /// with a good one to use instead.
    @Test(arguments: ["1234", "password", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"])
    func aWeakWHEPTokenIsRefused(token: String) throws {
        let run = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--size", "320x240", "--fps", "10", "--preset", "ultrafast",
                                                                    "--web", "127.0.0.1:0", "--whep-token", token, "--duration", "5s"],
                                       timeoutSeconds: 30, check: false)
        #expect(run.status != 0, "\(run.output) \(run.errorOutput)")
        #expect(run.errorOutput.contains("--whep-token is too easy to guess") && run.errorOutput.contains("openssl rand -hex 16"),
                "\(run.errorOutput)")
    }
}

/// Listening beyond loopback without an api_token is refused at start, with the lines to add;
/// `auth: none` starts anyway with a warning. Run inside a loopback-only namespace the test makes,
/// so "all interfaces" is only that namespace's `lo`.
@Suite struct ServeExposureTests {
    @Test func openListeningNeedsATokenOrAuthNone() throws {
        let binary = try LivepushBinary.path()
        let camera = "cameras:\n  - id: cam0\n    size: 320x240\n    fps: 10\n    encoder: {preset: ultrafast}\n"
        let run = try LoopbackNamespace.run(script: """
            printf '%s' '\(camera)' > closed.yaml
            printf 'auth: none\\n%s' '\(camera)' > open.yaml
            timeout -k 2 20 '\(binary)' serve --config closed.yaml --listen 0.0.0.0:0 > closed.log 2>&1; echo "exit $?" > closed.status
            '\(binary)' serve --config open.yaml --listen 0.0.0.0:0 > open.log 2>&1 &
            LP=$!
            for i in $(seq 1 100); do grep -q "dashboard at" open.log && break; sleep 0.1; done
            kill -TERM $LP; wait $LP; echo "exit $?" > open.status
            """, timeoutSeconds: 60)
        let closed = run.contents(of: "closed.log")
        let closedStatus = run.contents(of: "closed.status")
        #expect(closedStatus.hasPrefix("exit ") && !closedStatus.contains("exit 0") && !closedStatus.contains("exit 124"), "refused at once: \(closedStatus) \(closed)")
        #expect(closed.contains("refusing to listen on 0.0.0.0:0 without an api_token") && closed.contains("api_token: env:LIVEPUSH_TOKEN")
                && closed.contains("auth: none"), "\(closed)")
        let open = run.contents(of: "open.log")
        #expect(open.contains("dashboard at http://"), "\(open.suffix(1000))")
        #expect(open.contains("WARNING: livepush listens on 0.0.0.0"), "\(open.suffix(1000))")
        #expect(run.contents(of: "open.status").contains("exit 0"), "\(open.suffix(1000))")
    }
}
