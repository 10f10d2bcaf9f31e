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
            '\(try LivepushBinary.path())' stream \(quoted) --web 127.0.0.1:8080 --adaptive-bitrate --duration \(seconds + 20) > livepush.log 2>&1 &
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

    /// Frames livepush lost before any viewer (at capture, at the encoder) and at its WHEP output,
    /// from its summary: a loaded machine's, which no viewer can decode.
    static func framesLivepushDropped(_ log: String) -> Int {
        func number(before label: String, in line: Substring) -> Int {
            guard let range = line.range(of: " " + label) else { return 0 }
            return Int(line[..<range.lowerBound].split(separator: " ").last?.trimmingCharacters(in: .punctuationCharacters) ?? "") ?? 0
        }
        let lines = log.split(separator: "\n")
        let upstream = lines.last { $0.hasPrefix("livepush: stopped;") }.map { number(before: "at capture", in: $0) + number(before: "at the encoder", in: $0) } ?? 0
        return upstream + (lines.last { $0.hasPrefix("  whep:/") }.map { number(before: "dropped", in: $0) } ?? 0)
    }

    /// The page's frame codes came in capture order (chromium.RECORD_TIMELINE): none went back and
    /// none came twice for one frame. A stale read (the page's canvas drew the picture it showed
    /// before, for a frame of another RTP timestamp) is the page's on a busy machine, not the
    /// stream's, and must be rare; the page's own count of order errors counts those too.
    static func codesInOrder(_ stats: [String: Any]) -> Bool {
        let timeline = stats["timeline"] as? [String: Any] ?? [:]
        func count(_ key: String) -> Int { timeline[key] as? Int ?? .max }
        let read = stats["frameCodesRead"] as? Int ?? 0
        return count("orderErrors") == 0 && count("repeats") == 0 && count("staleReads") <= max(1, read / 100)
            && (stats["frameOrderErrors"] as? Int ?? .max) <= count("staleReads")
    }

    @Test
    func chromiumPlaysThePlayerPage() throws {
        try ExternalTool.require("chromium"); try ExternalTool.require("chromedriver")
        let (stats, log) = try watch(client: "\"$PY\" \"$PEERS/chromium_whep.py\" http://127.0.0.1:8080/player.html 30",
                                     streamArguments: Self.stream720p, seconds: 45)
        #expect(stats["state"] as? String == "connected", "\(stats)\n\(log.suffix(1000))")
        #expect(stats["width"] as? Int == 1280 && stats["height"] as? Int == 720, "\(stats)")
        #expect((stats["framesDecoded"] as? Int ?? 0) >= 100, "\(stats)")
        #expect((stats["latencySamples"] as? Int ?? 0) >= 100, "frame codes read in the page: \(stats)")
        #expect(Self.codesInOrder(stats), "\(stats)")
        // The full rate, in the stream's own frames: between two snapshots Chromium decoded at least 25
        // of every 30 frames captured (frame numbers count capture slots) that livepush did not drop.
        let snapshots = (stats["decodeSnapshots"] as? [[Int]] ?? []).filter { $0.count == 2 }
        let decoded = snapshots.count == 2 ? snapshots[1][0] - snapshots[0][0] : 0
        let captured = snapshots.count == 2 ? snapshots[1][1] - snapshots[0][1] : 0
        let dropped = Self.framesLivepushDropped(log)
        #expect(captured >= 90 && Double(decoded) >= 25.0 / 30 * Double(captured - dropped),
                "\(decoded) frames decoded while \(captured) were captured, \(dropped) of them dropped by livepush: \(snapshots); \(stats)")
        // Glass-to-glass latency is measured (printed); what livepush and the link add, capture to the
        // frame's last packet in the page, is bounded: Chromium's own buffering and drawing are not livepush's.
        let p50 = stats["latencyP50Ms"] as? Double ?? .infinity, arrival = stats["arrivalP50Ms"] as? Double ?? .infinity
        #expect(p50 > 0 && arrival > 0 && arrival < 250, "capture → received p50 \(arrival) ms (glass-to-glass p50 \(p50) ms): \(stats)")
        // A key frame for the new viewer, not the schedule's (30 s away): the first picture shown was
        // captured soon after the connection came up, however long the page and the handshake took.
        let timeline = stats["timeline"] as? [String: Any] ?? [:]
        let connectedAt = (timeline["connectedAt"] as? NSNumber)?.doubleValue ?? .infinity
        let firstCapture = ((timeline["firstCode"] as? [String: Any])?["wallClockMs"] as? NSNumber)?.doubleValue ?? .infinity
        #expect(firstCapture - connectedAt < 3000, "first frame captured \(firstCapture - connectedAt) ms after the connection: \(timeline)")
        print("WHEPPeerTests: Chromium glass-to-glass p50 \(p50) ms, capture → received p50 \(arrival) ms, first frame "
              + "\(stats["secondsToFirstFrame"] ?? "-") s after the page opened, \(decoded) decoded of \(captured) captured")
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
        // With --keyint 30 (seconds) only the keyframe a new viewer requests explains a first frame
        // captured this soon after the connection came up (media time: the wait for the handshake is not livepush's).
        let firstCapture = (result["firstCaptureMs"] as? Double ?? .infinity) / 1000, connectedAt = result["connectedAt"] as? Double ?? .infinity
        #expect(firstCapture - connectedAt < 3, "first frame captured \(firstCapture - connectedAt) s after the connection: \(result)")
        #expect(result["deleteStatus"] as? Int == 200, "\(result)")
        #expect(result["deleteAgainStatus"] as? Int == 404, "\(result)")
    }

    /// A viewer whose RTCP receiver reports stop (its ICE still answers consent) is closed after
    /// `--whep-stall-timeout`; another viewer of the same stream keeps decoding, codes in order.
    @Test func aViewerWhoseReportsStopIsClosedAndTheOtherKeepsWatching() throws {
        let stallTimeout = 2.0
        // The silent viewer goes quiet 3 s after its first frame and watches until livepush ends it
        // (30 s only bounds a hang); the steady one watches 2 s past that.
        let (result, log) = try watch(client: "\"$PY\" \"$PEERS/aiortc_whep_silent.py\" http://127.0.0.1:8080/whep 3 30 2",
                                      streamArguments: ["--source", "testpattern", "--size", "640x360", "--fps", "30", "--keyint", "2",
                                                        "--whep-stall-timeout", "2s"], seconds: 45)
        let steady = result["steady"] as? [String: Any] ?? [:], silent = result["silent"] as? [String: Any] ?? [:]
        #expect(steady["postStatus"] as? Int == 201 && silent["postStatus"] as? Int == 201, "\(result)\n\(log.suffix(1500))")
        func time(_ key: String) -> Double? { (silent[key] as? NSNumber)?.doubleValue }
        #expect(silent["trackEnded"] as? Bool == true, "livepush ended the silent viewer, not the peer's own bound: \(silent)")
        if let lastReport = time("lastReportAt"), let endedAt = time("endedAt"), let silencedAt = time("silencedAt") {
            // Closed a few seconds after its reports stopped: not before the stall timeout has passed
            // since its last report, and within the media not yet owed (2 s, or its longest gap
            // between reports and a judging step) plus the timeout, plus two judging steps for the close.
            let owed = max(2, (time("longestReportGap") ?? 0) + 1)
            #expect(endedAt - lastReport > stallTimeout && endedAt - lastReport < owed + stallTimeout + 2,
                    "closed \(endedAt - lastReport) s after its last report (\(endedAt - silencedAt) s after the silence): \(silent)")
            print(String(format: "WHEPPeerTests: silent viewer closed %.2f s after its last report, %.2f s after the silence (longest report gap %.2f s)",
                         endedAt - lastReport, endedAt - silencedAt, time("longestReportGap") ?? 0))
        } else {
            Issue.record("the silent viewer never went silent: \(silent)\n\(log.suffix(1500))")
        }
        // The other viewer watched throughout, past the close: its frames in order, at least 80 % of
        // the frames captured over its watch (frame numbers count capture slots) that livepush did not drop.
        let (first, last) = (steady["firstCode"] as? Int ?? 0, steady["lastCode"] as? Int ?? 0)
        let frames = steady["frames"] as? Int ?? 0, dropped = Self.framesLivepushDropped(log)
        #expect(steady["inOrder"] as? Bool == true && Double(frames) >= 0.8 * Double(last - first + 1 - dropped),
                "the other viewer watched throughout: \(frames) frames of \(last - first + 1) captured, \(dropped) dropped by livepush: \(steady)")
        #expect(((steady["lastFrameAt"] as? NSNumber)?.doubleValue ?? 0) > time("endedAt") ?? .infinity, "still decoding after the close: \(steady)")
        #expect(log.contains("1 viewers closed as stalled"), "\(log.suffix(1500))")
        #expect(log.contains("stalled: no RTCP receiver report progress for"), "the log line names the evidence: \(log.suffix(1500))")
    }
}
