import Foundation
import Testing
import TestSupport

/// A WHEP viewer (headless Chromium, aiortc) watches `livepush stream --web` while the link stalls,
/// both ways (``LoopbackStall``: loopback UDP backs up a sender only when the stall is in the
/// kernel), for at least 300 ms and until livepush counts a dropped frame (at most 3 s). The stall
/// fills livepush's socket, its backlog passes the limit, and livepush drops frames there; the delta
/// frames after a drop are held until the key frame it asked for. Required: every frame the viewer
/// decodes carries the code captured into it (nothing decoded with errors), every drop is counted by
/// its reason, and a frame captured after the stall is seen within 0.5 s of its end, beyond the
/// viewer's own latency before the stall (its 95th percentile, measured in the same run).
@Suite(.serialized) struct WHEPStallTests {
    static let whepPort = 40_020
    static let stallSeconds = 0.3
    /// How long the stall may wait for livepush's drop: a bound, never reached unless nothing is sent.
    static let maximumStallSeconds = 3.0
    /// Enough bytes that 300 ms of video overflows the kernel's send buffer (208 KiB of socket
    /// memory, about 110 KB of datagrams) and then livepush's 64 KiB backlog; REMB must not lower it.
    static let stream = ["--source", "testpattern:busy", "--size", "1280x720", "--fps", "30", "--bitrate", "8M", "--min-bitrate", "off",
                         "--profile", "baseline", "--keyint", "30"]
    /// Decoded frames the viewer watches before it asks for the stall, and after the stall's end
    /// before it stops (its own timeout bounds both).
    static let (framesBefore, framesAfter) = (90, 45)

    /// One decoded frame: when the viewer received it (epoch seconds), its code, if valid, and its
    /// RTP timestamp where the viewer reports it (Chromium).
    struct Frame {
        var receivedSeconds: Double
        var number: Int?
        var captureMilliseconds: Double?
        var rtpTimestamp: Int?
    }

    struct Run {
        var result: [String: Any]
        var frames: [Frame]
        var stallStart: Double
        var stallEnd: Double
        var log: String
    }

    /// Runs livepush and `client` (a shell command; $PY the venv's python, $PEERS the scripts) in a
    /// namespace; the client creates `stall-now` when it has watched long enough, and the script
    /// stalls the link then, once. livepush runs on a terminal (`script`), so its status line
    /// (output frames sent and dropped) is rewritten every 250 ms: the stall holds until that
    /// count of drops moves.
    func run(client: String) throws -> Run {
        for tool in ["unshare", "tc", "script"] { try ExternalTool.require(tool) }
        let stalled = "tc qdisc change dev lo root handle 1: \(LoopbackStall.stalled)"
        let open = "tc qdisc change dev lo root handle 1: \(LoopbackStall.open)"
        let namespace = try LoopbackNamespace.run(script: """
            set -u
            \(LoopbackStall.setUp)
            script -qfec "echo \\$\\$ > livepush.pid; exec '\(try LivepushBinary.path())' stream \(Self.stream.joined(separator: " ")) \
              --web 127.0.0.1:8080 --webrtc-port \(Self.whepPort) --duration 80" livepush.log > /dev/null 2>&1 &
            LP=$!
            for i in $(seq 1 100); do grep -q "watch at" livepush.log && break; sleep 0.1; done
            # The WHEP output's frames dropped, from the latest status line (0 before the first).
            dropped() {
              tail -c 3000 livepush.log | tr '\\r' '\\n' | grep -oE 'whep:[^ ]*: [^0-9]*[0-9]+ sent [0-9]+ dropped' | tail -n 1 \
                | awk '{ print $(NF - 1) } END { if (NR == 0) print 0 }'
            }
            PY='\(try PythonPeers.python())' PEERS='\(PythonPeers.scripts)' timeout -k 5 60 sh -c '\(client)' > client.json 2> client.err &
            CLIENT=$!
            for i in $(seq 1 1000); do [ -e stall-now ] && break; sleep 0.05; done
            if [ -e stall-now ]; then
              before=$(dropped)
              \(stalled) && date +%s.%N > stall-start
              sleep \(Self.stallSeconds)
              for i in $(seq 1 \(Int((Self.maximumStallSeconds - Self.stallSeconds) / 0.05))); do [ "$(dropped)" -gt "$before" ] && break; sleep 0.05; done
              \(open)
              # tbf's timer still waits for the slow rate: the next datagram makes the queue move.
              echo > /dev/udp/127.0.0.1/9
              date +%s.%N > stall-end
            fi
            wait $CLIENT
            kill -INT "$(cat livepush.pid)"; wait $LP
            """, timeoutSeconds: 120)
        // The terminal ends lines with CR LF and rewrites the status line after a CR.
        let log = namespace.contents(of: "livepush.log").replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        let logs = "tc: \(namespace.contents(of: LoopbackStall.errorFile))\nlivepush: \(log.suffix(1500))\nclient: \(namespace.contents(of: "client.err").suffix(1500))"
        let result = try #require(PythonPeers.result(namespace.contents(of: "client.json")), "the peer printed no JSON\n\(logs)")
        let stallStart = try #require(Double(namespace.contents(of: "stall-start").trimmingCharacters(in: .whitespacesAndNewlines)),
                                      "the link never stalled: \(result["error"] ?? "")\n\(logs)")
        let stallEnd = try #require(Double(namespace.contents(of: "stall-end").trimmingCharacters(in: .whitespacesAndNewlines)))
        let frames = (result["frames"] as? [[Any]] ?? []).map { entry in
            Frame(receivedSeconds: (entry.first as? NSNumber)?.doubleValue ?? 0, number: (entry.dropFirst().first as? NSNumber)?.intValue,
                  captureMilliseconds: (entry.dropFirst(2).first as? NSNumber)?.doubleValue, rtpTimestamp: (entry.dropFirst(3).first as? NSNumber)?.intValue)
        }
        return Run(result: result, frames: frames, stallStart: stallStart, stallEnd: stallEnd, log: log)
    }

    /// What livepush's summary line says of the WHEP output: frames dropped (in all, at the hand-off
    /// queue, at the socket) and held for a key frame; and the frames dropped before any output.
    struct Counts {
        var dropped = 0, atHandOff = 0, atSocket = 0, held = 0, upstream = 0

        init(summary log: String) {
            func number(before label: String, in line: Substring) -> Int {
                guard let range = line.range(of: " " + label) else { return 0 }
                return Int(line[..<range.lowerBound].split(separator: " ").last?.trimmingCharacters(in: .punctuationCharacters) ?? "") ?? 0
            }
            let lines = log.split(separator: "\n")
            // The summary names an output by kind and target ("whep:/whep/{camera}"); the line after it is WHEP's own report.
            if let output = lines.last(where: { $0.hasPrefix("  whep:/") }) {
                (dropped, atHandOff, atSocket) = (number(before: "dropped", in: output), number(before: "at the hand-off queue", in: output),
                                                  number(before: "at the socket", in: output))
                held = number(before: "held for a key frame", in: output)
            }
            if let stopped = lines.last(where: { $0.hasPrefix("livepush: stopped;") }) {
                upstream = number(before: "at capture", in: stopped) + number(before: "at the encoder", in: stopped)
            }
        }
    }

    /// What every viewer must see, whatever it is: the stall made livepush drop at its socket and
    /// every drop is counted by reason; nothing decoded to a picture other than the one captured,
    /// in order; a frame captured after the stall arrives within 0.5 s of its end beyond the
    /// viewer's usual latency. Returns the frame numbers the viewer never saw (gaps between
    /// consecutive frames) and the counts.
    func checkCommonGround(_ run: Run) -> (missing: Int, counts: Counts) {
        let counts = Counts(summary: run.log)
        let report = "stall \(run.stallStart)…\(run.stallEnd); counts \(counts); \(run.log.split(separator: "\n").suffix(4).joined(separator: " | "))"
        #expect(run.stallEnd - run.stallStart >= Self.stallSeconds, "\(report)")
        #expect(counts.atSocket > 0, "the stall made livepush drop at its socket: \(report)")
        // Held frames may be none: the encoder answers a request with its very next frame.
        #expect(counts.dropped == counts.atHandOff + counts.atSocket, "every drop by its reason: \(report)")

        let before = run.frames.filter { $0.receivedSeconds < run.stallStart }
        let after = run.frames.filter { $0.receivedSeconds > run.stallEnd }
        #expect(before.count >= 30 && after.count >= 30, "video on both sides of the stall: \(before.count) before, \(after.count) after; \(report)")
        // From the first picture that carries a code on: Chromium may present its very first frame
        // before the canvas can read it (seen 2 times in 7 runs, 4 s before the stall, never after).
        let undecodable = run.frames.drop { $0.number == nil }.filter { $0.number == nil }
        let firstUndecodable = undecodable.first.map { $0.receivedSeconds - run.stallEnd } ?? 0
        #expect(undecodable.isEmpty, "\(undecodable.count) of \(run.frames.count) frames decoded to something else than was captured, first \(firstUndecodable) s from the stall's end; \(report)")
        // A stale read: the page's canvas drew the picture it showed before (the same code) for a
        // frame of another capture instant (another RTP timestamp): the page's, on a busy machine,
        // not the stream's. A frame livepush sent twice would carry its RTP timestamp twice.
        let read = run.frames.filter { $0.number != nil }
        let stale = Set(read.indices.dropFirst().filter { index in
            read[index].number == read[index - 1].number && read[index].rtpTimestamp.map { $0 != read[index - 1].rtpTimestamp } == true
        })
        // How many there are follows the machine's load (2 of 146 in a CI run beside two fuzzers), not
        // livepush: the bound only keeps the order check below standing on nearly every frame read.
        #expect(stale.count <= max(3, read.count / 20), "\(stale.count) stale reads of \(read.count): \(report)")
        let numbers = read.indices.filter { !stale.contains($0) }.compactMap { read[$0].number }
        let notForward = zip(numbers.indices, zip(numbers, numbers.dropFirst())).filter { $0.1.1 <= $0.1.0 }
            .map { index, pair in "\(numbers[max(0, index - 2)...min(numbers.count - 1, index + 3)])" }
        #expect(notForward.isEmpty, "frames in capture order: \(notForward); \(report)")

        // Capture to receipt before the stall, on this machine in this run: the part of "back" that
        // is not the stall's.
        let latencies = before.compactMap { frame in frame.captureMilliseconds.map { frame.receivedSeconds - $0 / 1000 } }.sorted()
        let usual = latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, latencies.count * 95 / 100)]
        let back = run.frames.first { ($0.captureMilliseconds ?? 0) >= run.stallEnd * 1000 }
        let backSeconds = back.map { $0.receivedSeconds - run.stallEnd }
        #expect(!latencies.isEmpty && backSeconds.map { $0 <= usual + 0.5 } == true,
                "video back \(backSeconds.map { "\($0)" } ?? "never") s after the stall, latency p95 before it \(usual) s: \(report)")
        let missing = zip(numbers, numbers.dropFirst()).reduce(0) { $0 + ($1.1 - $1.0 - 1) }
        #expect(missing >= counts.dropped + counts.held, "every frame livepush dropped or held is one the viewer never saw: \(missing); \(report)")
        print("WHEPStallTests: stall \(String(format: "%.3f", run.stallEnd - run.stallStart)) s, \(run.frames.count) frames decoded, "
              + "\(missing) missing, video back \(backSeconds.map { String(format: "%.3f", $0) } ?? "-") s after "
              + "(latency p95 before \(String(format: "%.3f", usual)) s), \(stale.count) stale reads; \(counts)")
        return (missing, counts)
    }

    @Test
    func aiortcDecodesEveryFrameThroughAStallAndSeesVideoBackWithinHalfASecond() throws {
        let run = try run(client: "\"$PY\" \"$PEERS/aiortc_stall.py\" http://127.0.0.1:8080/whep stall-now stall-end \(Self.framesBefore) \(Self.framesAfter) 55")
        #expect(run.result["postStatus"] as? Int == 201, "\(run.result)\n\(run.log.suffix(1500))")
        let (missing, counts) = checkCommonGround(run)
        // aiortc hands over every frame it decodes, so the frames it missed are exactly the ones
        // livepush dropped or held (plus any capture or the encoder dropped).
        #expect(missing <= counts.dropped + counts.held + counts.upstream, "frames lost that no counter explains: \(missing), \(counts)")
        #expect(run.result["decoderComplaintCount"] as? Int == 0, "FFmpeg's decoder: \(run.result["decoderComplaints"] ?? "")")
    }

    @Test
    func chromiumShowsOnlyIntactFramesThroughAStallAndVideoBackWithinHalfASecond() throws {
        try ExternalTool.require("chromium"); try ExternalTool.require("chromedriver")
        let run = try run(client: "\"$PY\" \"$PEERS/chromium_stall.py\" http://127.0.0.1:8080/player.html stall-now stall-end \(Self.framesBefore) \(Self.framesAfter) 55")
        _ = checkCommonGround(run)
        let stats = run.result["stats"] as? [String: Any] ?? [:]
        #expect((stats["keyFramesDecoded"] as? Int ?? 0) >= 2, "a key frame after the stall: \(stats)")
    }
}
