import Foundation
import Testing
import TestSupport

/// Real WebRTC peers watching `livepush stream --web` over WHEP: headless Chromium playing the
/// player page, and aiortc as an independent stack. Each test runs livepush and the peer in one
/// loopback-only network namespace (unshare --net), so WebRTC never leaves 127.0.0.1.
@Suite(.serialized) struct WHEPPeerTests {
    struct PeerFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts `livepush stream ... --web 127.0.0.1:8080` in a fresh namespace, waits until it
    /// listens, runs `client` (a shell command; $PY is the venv's python, $PEERS the scripts'
    /// directory), stops livepush with SIGINT, and returns the client's last stdout line as JSON
    /// plus livepush's output.
    func watch(client: String, streamArguments: [String], seconds: Int) throws -> (result: [String: Any], log: String) {
        let quoted = streamArguments.map { "'\($0)'" }.joined(separator: " ")
        let namespace = try LoopbackNamespace.run(script: """
            set -u
            '\(try LivepushBinary.path())' stream \(quoted) --web 127.0.0.1:8080 --duration \(seconds + 20) > livepush.log 2>&1 &
            LP=$!
            for i in $(seq 1 100); do grep -q "watch at" livepush.log && break; sleep 0.1; done
            PY='\(try PythonPeers.python())' PEERS='\(PythonPeers.scripts)' timeout -k 5 \(seconds) sh -c '\(client)' > client.json 2> client.err
            kill -INT $LP; wait $LP
            """, timeoutSeconds: seconds + 60)
        let log = namespace.contents(of: "livepush.log")
        guard let json = PythonPeers.result(namespace.contents(of: "client.json")) else {
            throw PeerFailure(description: "the peer printed no JSON: \(namespace.contents(of: "client.json").suffix(500)) \(namespace.contents(of: "client.err").suffix(2000))\nlivepush: \(log.suffix(2000))")
        }
        return (json, log)
    }

    static let stream720p = ["--source", "testpattern", "--size", "1280x720", "--fps", "30", "--profile", "baseline",
                             // Keyframes only on request: a quick first frame proves a new viewer gets one.
                             "--keyint", "30"]

    @Test
    func chromiumPlaysThePlayerPage() throws {
        try ExternalTool.require("chromium"); try ExternalTool.require("chromedriver")
        let (stats, log) = try watch(client: "\"$PY\" \"$PEERS/chromium_whep.py\" http://127.0.0.1:8080/player.html 30",
                                     streamArguments: Self.stream720p, seconds: 45)
        #expect(stats["state"] as? String == "connected", "\(stats)\n\(log.suffix(1000))")
        #expect(stats["width"] as? Int == 1280 && stats["height"] as? Int == 720, "\(stats)")
        #expect((stats["fps"] as? Double ?? 0) >= 25, "\(stats)")
        #expect((stats["framesDecoded"] as? Int ?? 0) >= 100, "\(stats)")
        #expect((stats["latencySamples"] as? Int ?? 0) >= 100, "frame codes read in the page: \(stats)")
        #expect(stats["frameOrderErrors"] as? Int == 0, "\(stats)")
        let p50 = stats["latencyP50Ms"] as? Double ?? .infinity
        #expect(p50 > 0 && p50 < 250, "glass-to-glass p50 \(p50) ms: \(stats)")
        #expect((stats["secondsToFirstFrame"] as? Double ?? .infinity) < 5, "\(stats)")
        let dom = stats["dom"] as? [String: String] ?? [:]
        #expect(dom["resolution"] == "1280×720", "\(dom)")
        #expect(dom["latency"]?.contains("p50") == true, "\(dom)")
    }

    @Test
    func aiortcDecodesFrameCodesInOrderAndDeleteEndsTheSession() throws {
        let (result, log) = try watch(client: "\"$PY\" \"$PEERS/aiortc_whep.py\" http://127.0.0.1:8080/whep 120 30",
                                      streamArguments: Self.stream720p, seconds: 40)
        #expect(result["postStatus"] as? Int == 201, "\(result)\n\(log.suffix(1000))")
        #expect(result["frames"] as? Int == 120, "\(result)")
        #expect((result["codes"] as? Int ?? 0) >= 110, "frame codes readable after decoding: \(result)")
        #expect(result["inOrder"] as? Bool == true, "\(result)")
        #expect(result["width"] as? Int == 1280 && result["height"] as? Int == 720, "\(result)")
        // With --keyint 30 only the keyframe a new viewer requests explains a first frame this fast.
        #expect((result["firstFrameSeconds"] as? Double ?? .infinity) < 3, "\(result)")
        #expect(result["deleteStatus"] as? Int == 200, "\(result)")
        #expect(result["deleteAgainStatus"] as? Int == 404, "\(result)")
    }

    /// A viewer whose RTCP receiver reports stop (its ICE still answers consent) is closed after
    /// `--whep-stall-timeout`; another viewer of the same stream keeps decoding, codes in order.
    @Test func aViewerWhoseReportsStopIsClosedAndTheOtherKeepsWatching() throws {
        let (result, log) = try watch(client: "\"$PY\" \"$PEERS/aiortc_whep_silent.py\" http://127.0.0.1:8080/whep 3 14",
                                      streamArguments: ["--source", "testpattern", "--size", "640x360", "--fps", "30", "--keyint", "2",
                                                        "--whep-stall-timeout", "2s"], seconds: 25)
        let steady = result["steady"] as? [String: Any] ?? [:], silent = result["silent"] as? [String: Any] ?? [:]
        #expect(steady["postStatus"] as? Int == 201 && silent["postStatus"] as? Int == 201, "\(result)\n\(log.suffix(1500))")
        let silencedAt = silent["silencedAt"] as? Double ?? .infinity, endedAt = silent["endedAt"] as? Double ?? 0
        #expect(endedAt - silencedAt > 2 && endedAt - silencedAt < 8, "closed a few seconds after its reports stopped: \(silent)")
        #expect(endedAt < 13, "livepush ended the silent viewer before the peer's own 14 s: \(silent)")
        #expect((steady["frames"] as? Int ?? 0) >= 350 && steady["inOrder"] as? Bool == true, "the other viewer watched throughout: \(steady)")
        #expect(log.contains("1 viewers closed as stalled"), "\(log.suffix(1500))")
        #expect(log.contains("stalled: no RTCP receiver report progress for"), "the log line names the evidence: \(log.suffix(1500))")
    }
}
