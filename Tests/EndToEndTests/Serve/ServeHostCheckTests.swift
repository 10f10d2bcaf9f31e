import Foundation
import Testing
import TestSupport

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
        let (stream, port) = try StreamWebExposureTests.startPlayer()
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
/// With one, its status, metrics and viewers' latency reports want it too.
@Suite struct StreamWebExposureTests {
    /// `livepush stream --web 127.0.0.1:0` with `extra` arguments, once it listens, and its port.
    static func startPlayer(_ extra: [String] = []) throws -> (BackgroundProcess, String) {
        let stream = try BackgroundProcess(try LivepushBinary.path(), ["stream", "--size", "320x240", "--fps", "10", "--preset", "ultrafast",
                                                                        "--web", "127.0.0.1:0", "--duration", "30s"] + extra)
        #expect(stream.waitUntil(timeoutSeconds: 20) { stream.output.contains("watch at http://") }, "\(stream.errorOutput.suffix(1000))")
        let line = try #require(stream.output.split(separator: "\n").first { $0.contains("watch at http://") }, "\(stream.output)")
        let port = try #require(line.split(separator: "/").dropFirst(1).first?.split(separator: ":").last.map(String.init), "\(line)")
        return (stream, port)
    }

    @Test func statusMetricsAndLatencyReportsWantTheWHEPToken() throws {
        let token = "6b1f0c9e2d4a8f7350e1c2b3a4d5e6f7"
        let (stream, port) = try Self.startPlayer(["--whep-token", token])
        let base = "http://127.0.0.1:\(port)"
        let bearer = ["-H", "Authorization: Bearer \(token)"]
        let report = ["-X", "POST", "-H", "Content-Type: application/json",
                      "--data", #"{"consent": true, "viewer": "curl", "clock": "frame_code", "latencies_ms": [40, 42]}"#, "\(base)/api/viewer-latency"]
        for path in ["/api/status", "/metrics"] {
            #expect(try Curl.status(["\(base)\(path)"]) == "401", "\(path)")
            #expect(try Curl.status(["-H", "Authorization: Bearer wrong", "\(base)\(path)"]) == "401", "\(path)")
            #expect(try Curl.status(bearer + ["\(base)\(path)"]) == "200", "\(path)")
        }
        #expect(try Curl.status(report) == "401")
        #expect(try Curl.status(bearer + ["-H", "Origin: http://evil.example"] + report) == "403")
        #expect(try Curl.status(bearer + report) == "204")
        let metrics = try Curl.body(bearer + ["\(base)/metrics"])
        #expect(metrics.contains(#"livepush_viewer_latency_seconds_count{camera="cam0",output="whep"} 2"#), "\(metrics.suffix(3000))")
        #expect(try Curl.body(bearer + ["\(base)/api/status"]).contains(#""viewersReporting":1"#))
        stream.kill(signal: SIGINT)
        #expect(stream.wait(timeoutSeconds: 15) == 0, "\(stream.errorOutput.suffix(1000))")
    }

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
