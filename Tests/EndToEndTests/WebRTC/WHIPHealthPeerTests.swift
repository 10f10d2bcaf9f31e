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

    /// When polling stops: after `polls` answers from the first `healthy` on; or once the endpoint's
    /// session `session` has decoded `codes` frame codes and the output is `healthy` again.
    enum PollUntil {
        case healthyPolls(Int)
        case sessionDecoded(String, codes: Int)

        var arguments: String {
            switch self {
            case .healthyPolls(let polls): "healthy \(polls)"
            case .sessionDecoded(let session, let codes): "session \(session) \(codes)"
            }
        }
    }

    /// Serves one camera with one WHIP output (`whipKeys` added to its mapping) to the endpoint
    /// started with `serverArguments`, reads `/api/status` every 0.2 s until `until` holds (at most
    /// `maximumSeconds`, a hang bound) into polls.jsonl, then `/metrics` (metrics.txt), and stops.
    func serveAndPoll(serverArguments: String, whipKeys: String, until: PollUntil, maximumSeconds: Int = 45) throws -> (run: Run, polls: [HealthPoll]) {
        let run = try run("""
            start_server server.json \(serverArguments)
            \(Self.writeServeConfig(whip: "url: 'http://127.0.0.1:\(Self.port)/whip/cam', \(whipKeys)"))
            "$LIVEPUSH" serve --config serve.yaml > livepush.log 2>&1 &
            LP=$!
            "$PY" - \(maximumSeconds) \(until.arguments) <<'PYEOF'
            import json, sys, time, urllib.request
            end = time.time() + float(sys.argv[1])
            mode, healthy_seen = sys.argv[2], 0

            def done(health):
                global healthy_seen
                if mode == "healthy":
                    healthy_seen += 1 if healthy_seen or health == "healthy" else 0
                    return healthy_seen >= int(sys.argv[3])
                try:
                    with open("server.json") as record:
                        session = json.load(record)["sessions"].get(sys.argv[3], {})
                except (OSError, ValueError):
                    return False
                return session.get("codes", 0) >= int(sys.argv[4]) and health == "healthy"

            with open("polls.jsonl", "w") as out:
                while time.time() < end:
                    health = None
                    try:
                        status = json.loads(urllib.request.urlopen("http://127.0.0.1:8080/api/status", timeout=2).read())
                        output = status["cameras"][0]["outputs"][0]
                        health = output.get("health")
                        out.write(json.dumps({"at": time.time(), "health": health, "delivery": output.get("delivery")}) + "\\n")
                    except Exception as error:
                        out.write(json.dumps({"at": time.time(), "error": str(error)}) + "\\n")
                    out.flush()
                    if done(health):
                        break
                    time.sleep(0.2)
            PYEOF
            "$PY" -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:8080/metrics', timeout=5).read().decode())" > metrics.txt
            kill -TERM $LP; wait $LP
            echo "exit $?" >> livepush.log
            """, timeoutSeconds: maximumSeconds + 45)
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
        // A stall timeout well above aiortc's report interval (0.5–1.5 s, longer on a busy machine): a
        // late report is not a stall, and degraded (half of it) needs 2.5 s without one past the media not yet owed.
        let (run, polls) = try serveAndPoll(serverArguments: "", whipKeys: "stall_timeout: 5s", until: .healthyPolls(30))
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
                                            whipKeys: "stall_timeout: 2s, reconnect: {delay: 1s, max_delay: 2s}",
                                            until: .sessionDecoded("s2", codes: 60))
        let record = try run.server()
        let silencedAt = try #require(record["rtcpSilencedAt"] as? Double, "the endpoint went silent: \(record)\n\(run.log)")
        let lastReport = try #require(record["lastReportAt"] as? Double, "a receiver report before the silence: \(record)")
        let firstStall = polls.first { $0.health == "stalled" }
        #expect(firstStall != nil, "stalled seen in /api/status: \(polls.map { $0.health ?? "-" })\n\(run.log)")
        if let firstStall {
            // The stall clock starts no sooner than the endpoint's last receiver report (media sent in
            // the last 2 s is not owed yet, so later still): no stall before the timeout has passed since.
            #expect(firstStall.at >= lastReport + stallTimeout,
                    "no stall before the timeout: \(firstStall.at - lastReport) s after the last report, \(firstStall.at - silencedAt) s after the silence")
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
        // The config's stall_timeout (2 s), not the default 5 s: the silence the line names reached 2 s
        // (judged every 0.5 s, so a step or so beyond it on a busy machine) and stayed short of 5 s.
        let silence = stallLines.first.flatMap { line in
            line.range(of: "progress for ").flatMap { Double(line[$0.upperBound...].prefix { $0.isNumber || $0 == "." }) }
        }
        #expect(silence.map { $0 >= stallTimeout && $0 < 5 } == true, "the config's stall_timeout (2 s): \(stallLines)")
    }

    @Test
    func anEndpointThatGoesSilentWithoutConsentIsReplacedForLostConsent() throws {
        let (run, polls) = try serveAndPoll(serverArguments: "--silence-rtcp-after 3 --freeze-after 3",
                                            whipKeys: "stall_timeout: 6s, consent_timeout: 1s, reconnect: {delay: 0.3s, max_delay: 1s}",
                                            until: .sessionDecoded("s2", codes: 30))
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
