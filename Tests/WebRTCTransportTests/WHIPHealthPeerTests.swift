import Foundation
import Testing
import TestSupport

/// A WHIP output's delivery health, judged from aiortc's RTCP receiver reports, read back from
/// `livepush serve`'s `/api/status` every 0.2 s (docs/delivery-health.md).
extension WHIPPeerTests {
    /// One look at the WHIP output in `/api/status`.
    struct HealthPoll {
        let at: Double
        let health: String?
        let delivery: [String: Any]
    }

    /// Serves one camera with one WHIP output (`whipKeys` added to its mapping) to the endpoint
    /// started with `serverArguments`, reads `/api/status` every 0.2 s for `seconds` (polls.jsonl),
    /// then `/metrics` (metrics.txt), and stops.
    func serveAndPoll(serverArguments: String, whipKeys: String, seconds: Int) throws -> (run: Run, polls: [HealthPoll]) {
        let run = try run("""
            start_server server.json \(serverArguments)
            \(Self.writeServeConfig(whip: "url: 'http://127.0.0.1:\(Self.port)/whip/cam', \(whipKeys)"))
            "$LIVEPUSH" serve --config serve.yaml > livepush.log 2>&1 &
            LP=$!
            "$PY" - \(seconds) <<'PYEOF'
            import json, sys, time, urllib.request
            end = time.time() + float(sys.argv[1])
            with open("polls.jsonl", "w") as out:
                while time.time() < end:
                    try:
                        status = json.loads(urllib.request.urlopen("http://127.0.0.1:8080/api/status", timeout=2).read())
                        output = status["cameras"][0]["outputs"][0]
                        out.write(json.dumps({"at": time.time(), "health": output.get("health"), "delivery": output.get("delivery")}) + "\\n")
                    except Exception as error:
                        out.write(json.dumps({"at": time.time(), "error": str(error)}) + "\\n")
                    out.flush()
                    time.sleep(0.2)
            PYEOF
            "$PY" -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:8080/metrics', timeout=5).read().decode())" > metrics.txt
            kill -TERM $LP; wait $LP
            echo "exit $?" >> livepush.log
            """, timeoutSeconds: seconds + 45)
        let polls = run.namespace.contents(of: "polls.jsonl").split(separator: "\n").compactMap { line -> HealthPoll? in
            guard let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let at = json["at"] as? Double else { return nil }
            return HealthPoll(at: at, health: json["health"] as? String, delivery: json["delivery"] as? [String: Any] ?? [:])
        }
        return (run, polls)
    }

    /// The states seen from the first `healthy` on (before it, the session is still connecting).
    static func fromFirstHealthy(_ polls: [HealthPoll]) -> ArraySlice<HealthPoll> {
        polls.drop { $0.health != "healthy" }
    }

    @Test
    func aHealthyWHIPSessionStaysHealthy() throws {
        let (run, polls) = try serveAndPoll(serverArguments: "", whipKeys: "stall_timeout: 2s", seconds: 9)
        let steady = Self.fromFirstHealthy(polls)
        #expect(steady.count >= 30, "healthy within the first seconds, then looked at for several: \(polls.map { $0.health ?? "-" })\n\(run.log)")
        #expect(Set(steady.map { $0.health ?? "none" }) == ["healthy"], "no false stall: \(steady.map { $0.health ?? "-" })\n\(run.log)")
        let delivery = try #require(steady.last?.delivery)
        #expect(delivery["reconnectCauses"] as? [String: Int] == [:], "\(delivery)")
        #expect(delivery["evidence"] as? String == "RTCP receiver report", "\(delivery)")
        let sent = delivery["bytesSent"] as? Int ?? 0, acknowledged = delivery["bytesAcknowledged"] as? Int ?? 0
        #expect(sent > 100_000 && acknowledged > 0 && acknowledged <= sent, "\(delivery)")
        print("WHIP healthy session: \(sent) bytes sent, \(acknowledged) acknowledged by receiver reports")
        let healthLines = run.namespace.contents(of: "metrics.txt").split(separator: "\n").filter {
            $0.hasPrefix("livepush_output_health{") && $0.contains(#"kind="whip""#)
        }
        let current = healthLines.filter { $0.hasSuffix(" 1.0") }
        #expect(healthLines.count == 5 && current.count == 1 && current.first?.contains(#"state="healthy""#) == true, "\(healthLines)")
        let record = try run.server()
        #expect(record["posts"] as? [Int] == [201], "one session throughout: \(record)")
    }

    @Test
    func aWHIPEndpointThatStopsSendingReceiverReportsIsStalledAndReplaced() throws {
        let stallTimeout = 2.0
        let (run, polls) = try serveAndPoll(serverArguments: "--silence-rtcp-after 3",
                                            whipKeys: "stall_timeout: 2s, reconnect: {delay: 1s, max_delay: 2s}", seconds: 16)
        let record = try run.server()
        let silencedAt = try #require(record["rtcpSilencedAt"] as? Double, "the endpoint went silent: \(record)\n\(run.log)")
        let firstStall = polls.first { $0.health == "stalled" }
        #expect(firstStall != nil, "stalled seen in /api/status: \(polls.map { $0.health ?? "-" })\n\(run.log)")
        if let firstStall {
            // Media sent in the last 2 s is not owed yet, so the stall clock starts after the silence.
            #expect(firstStall.at >= silencedAt + stallTimeout, "no stall before the timeout: \(firstStall.at - silencedAt) s")
            let resumed = polls.first { $0.at > firstStall.at && $0.health == "healthy" }.map { String(format: "%.2f", $0.at - silencedAt) } ?? "never"
            print("WHIP stall reported \(String(format: "%.2f", firstStall.at - silencedAt)) s after the endpoint's RTCP stopped, "
                  + "healthy again on a new session \(resumed) s after (stall_timeout \(stallTimeout) s)")
        }
        let before = Self.fromFirstHealthy(polls).prefix { $0.at < silencedAt }
        #expect(!before.isEmpty && before.allSatisfy { $0.health == "healthy" }, "healthy until the silence: \(before.map { $0.health ?? "-" })")
        let last = try #require(polls.last)
        #expect(last.health == "healthy", "healthy again on the new session: \(polls.map { $0.health ?? "-" })\n\(run.log)")
        #expect(last.delivery["reconnectCauses"] as? [String: Int] == ["stalled": 1], "\(last.delivery)")
        #expect(record["posts"] as? [Int] == [201, 201], "a fresh session: \(record)\n\(run.log)")
        #expect((record["deletes"] as? [String] ?? []).contains("s1"), "the stalled session was deleted: \(record)")
        let first = run.session(record, "s1"), second = run.session(record, "s2")
        #expect((second["codes"] as? Int ?? 0) >= 60 && second["inOrder"] as? Bool == true, "the new session decodes: \(second)\n\(run.log)")
        #expect((second["firstCode"] as? Int ?? 0) > (first["lastCode"] as? Int ?? .max), "the same encode continued: \(first) \(second)")
        #expect(second["firstFrameKey"] as? Bool == true, "the new session's first decoded frame is a key frame: \(second)")
        // (The degraded line before it names the evidence too, at info level.)
        let stallLines = run.livepush.split(separator: "\n").filter { $0.contains("warning") && $0.contains("no RTCP receiver report progress for") }
        #expect(stallLines.count == 1 && stallLines.first?.contains("unacknowledged") == true, "one line names the evidence: \(run.log)")
        #expect(stallLines.first?.contains("progress for 2.") == true, "the config's stall_timeout (2 s), judged every 0.5 s: \(stallLines)")
    }

    @Test
    func anEndpointThatGoesSilentWithoutConsentIsReplacedForLostConsent() throws {
        let (run, polls) = try serveAndPoll(serverArguments: "--silence-rtcp-after 3 --freeze-after 3",
                                            whipKeys: "stall_timeout: 6s, consent_timeout: 1s, reconnect: {delay: 0.3s, max_delay: 1s}",
                                            seconds: 12)
        let record = try run.server()
        #expect(record["rtcpSilencedAt"] is Double && record["frozenAt"] is Double, "\(record)\n\(run.log)")
        let last = try #require(polls.last)
        #expect(last.health == "healthy", "\(polls.map { $0.health ?? "-" })\n\(run.log)")
        #expect(last.delivery["reconnectCauses"] as? [String: Int] == ["ICE consent lost": 1], "consent failed first: \(last.delivery)\n\(run.log)")
        #expect(!polls.contains { $0.health == "stalled" }, "\(polls.map { $0.health ?? "-" })")
        let second = run.session(record, "s2")
        #expect((second["codes"] as? Int ?? 0) >= 30 && second["inOrder"] as? Bool == true, "\(second)\n\(run.log)")
    }

    @Test
    func theWHIPStallTimeoutFlagBecomesTheOutputsStallTimeout() throws {
        let printed = try ExternalTool.run(try LivepushBinary.path(), [
            "stream", "--print-config", "--whip", "http://127.0.0.1:\(Self.port)/whip/cam", "--whip-stall-timeout", "3s",
        ], timeoutSeconds: 30).output
        // The camera has a stall_timeout of its own (its capture): this one is under the whip output.
        let whipOutput = printed.components(separatedBy: "- whip:").dropFirst().first ?? ""
        #expect(whipOutput.contains("stall_timeout: 3s"), "\(printed)")
    }
}
