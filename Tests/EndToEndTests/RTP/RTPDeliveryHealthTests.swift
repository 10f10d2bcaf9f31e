import Foundation
import Testing
import TestSupport

/// A plain RTP output's delivery health against real receivers, read back from `livepush serve`'s
/// `/api/status`: GStreamer's rtpbin, which sends RTCP receiver reports back to the output's
/// `local_port`, and a bare udpsrc, which sends none (docs/delivery-health.md).
@Suite(.serialized, .timeLimit(.minutes(2))) struct RTPDeliveryHealthTests {
    struct Failure: Error, CustomStringConvertible { var description: String }

    /// The two outputs' health and delivery report, from one look at `/api/status`.
    struct Poll {
        let at: Date
        let reporting: (health: String?, delivery: [String: Any])
        let silent: (health: String?, delivery: [String: Any])
    }

    /// rtpbin receiving H.264 on `port` (RTCP on `port` + 1), decoding nothing (fakesink), and sending
    /// its receiver reports every ~1 s (RFC 3550's 5 s minimum lowered) to `rtcpTo`.
    static func rtpbinReceiver(port: Int, rtcpTo: Int) throws -> BackgroundProcess {
        try BackgroundProcess("gst-launch-1.0", [
            "-q", "rtpbin", "name=b", "rtpsession0::rtcp-min-interval=1000000000",
            "udpsrc", "address=127.0.0.1", "port=\(port)", "caps=application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96",
            "!", "b.recv_rtp_sink_0", "b.", "!", "rtph264depay", "!", "fakesink",
            "udpsrc", "address=127.0.0.1", "port=\(port + 1)", "!", "b.recv_rtcp_sink_0",
            "b.send_rtcp_src_0", "!", "udpsink", "host=127.0.0.1", "port=\(rtcpTo)", "sync=false", "async=false",
        ])
    }

    static func poll(_ serve: ServeUnderTest) throws -> Poll {
        let body = try Curl.body(["\(serve.baseURL)/api/status"])
        guard let status = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
              let outputs = (status["cameras"] as? [[String: Any]])?.first?["outputs"] as? [[String: Any]],
              let reporting = outputs.first(where: { $0["id"] as? String == "reporting" }),
              let silent = outputs.first(where: { $0["id"] as? String == "silent" }) else {
            throw Failure(description: "no outputs in /api/status: \(body)")
        }
        return Poll(at: Date(), reporting: (reporting["health"] as? String, reporting["delivery"] as? [String: Any] ?? [:]),
                    silent: (silent["health"] as? String, silent["delivery"] as? [String: Any] ?? [:]))
    }

    /// Polls every 0.25 s until `condition` holds (at most `seconds`); every poll is kept in `log`.
    static func poll(_ serve: ServeUnderTest, seconds: Double, log: inout [Poll], until condition: (Poll) -> Bool) throws -> Poll? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            // The camera shows in /api/status once it runs, which may come after serve answers: a look
            // without its outputs is no look.
            guard let latest = try? poll(serve) else {
                Thread.sleep(forTimeInterval: 0.25)
                continue
            }
            log.append(latest)
            if condition(latest) { return latest }
            Thread.sleep(forTimeInterval: 0.25)
        }
        return nil
    }

    @Test func receiverReportsMakeTheOutputHealthyTheirSilenceStalledAndTheirReturnHealthyAgain() throws {
        let rtpPort = try LoopbackUDPSocket().port, silentPort = try LoopbackUDPSocket().port, localPort = try LoopbackUDPSocket().port
        let stallTimeout = 3.0
        let receiver = try Self.rtpbinReceiver(port: rtpPort, rtcpTo: localPort)
        // A receiver that takes the packets and says nothing, like Janus's streaming plugin.
        let bare = try BackgroundProcess("gst-launch-1.0", ["-q", "udpsrc", "address=127.0.0.1", "port=\(silentPort)", "!", "fakesink"])
        defer { receiver.kill(signal: SIGCONT) }
        #expect(UDPPortWait.waitUntilBound([rtpPort, rtpPort + 1], by: receiver) && UDPPortWait.waitUntilBound([silentPort], by: bare),
                "the receivers never listened: \(receiver.errorOutput.suffix(800)) \(bare.errorOutput.suffix(800))")
        let serve = try ServeUnderTest(yaml: ServeYAML.config([ServeYAML.camera(
            "cam0", size: "320x240", fps: 15, encoder: "{bitrate: 300k, preset: ultrafast, keyint: 1s}",
            outputs: ["rtp: {id: reporting, destination: '127.0.0.1:\(rtpPort)', local_port: \(localPort), stall_timeout: \(Int(stallTimeout))s}",
                      "rtp: {id: silent, destination: '127.0.0.1:\(silentPort)', stall_timeout: \(Int(stallTimeout))s}"])]))
        var log: [Poll] = []
        let healthy = try Self.poll(serve, seconds: 20, log: &log) { $0.reporting.health == "healthy" && ($0.reporting.delivery["bytesAcknowledged"] as? Int ?? 0) > 0 }
        #expect(healthy != nil, "healthy once rtpbin reports: \(log.map { $0.reporting.health ?? "-" })\n\(serve.process.errorOutput.suffix(2000))")
        // Healthy for a while: the reports keep coming.
        _ = try Self.poll(serve, seconds: 4, log: &log) { _ in false }
        let steady = log.drop { $0.reporting.health != "healthy" }
        #expect(steady.allSatisfy { $0.reporting.health == "healthy" }, "no false stall: \(steady.map { $0.reporting.health ?? "-" })")

        // What the output learnt of rtpbin's report interval (its longest gap between reports) sets how
        // much media it does not yet count as owed: 2 s, or that gap and a sample more.
        let longestGap = try #require(log.last).reporting.delivery["longestGapSeconds"] as? Double ?? 0
        let window = max(2, longestGap + 0.5)
        receiver.kill(signal: SIGSTOP)
        let pausedAt = Date()
        // The last look before the output took rtpbin's last report (its acknowledged bytes moved after
        // it): the stall clock cannot start before it, however late a loaded machine made that report.
        let acknowledgedSoFar = log.map { $0.reporting.delivery["bytesAcknowledged"] as? Int ?? 0 }
        let beforeLastReport = try #require(acknowledgedSoFar.lastIndex { $0 != acknowledgedSoFar.last }.map { log[$0].at } ?? log.first?.at)
        let stalled = try Self.poll(serve, seconds: 30, log: &log) { $0.reporting.health == "stalled" }
        let stallSeconds = stalled.map { $0.at.timeIntervalSince(pausedAt) }
        #expect(stalled != nil, "stalled once the reports stop: \(log.map { $0.reporting.health ?? "-" })\n\(serve.process.errorOutput.suffix(2000))")
        if let stalled, let stallSeconds {
            // The stall clock starts once the media of the last report interval (the window) is owed:
            // never within the timeout of the last report, and late by no more than the window and a
            // few 500 ms checks and polls.
            let sinceReport = stalled.at.timeIntervalSince(beforeLastReport)
            #expect(sinceReport >= stallTimeout && stallSeconds < stallTimeout + window + 4,
                    "stalled \(stallSeconds) s after the receiver paused, \(sinceReport) s after its last report (window \(window) s)")
        }
        let stallLine = serve.process.errorOutput.split(separator: "\n").first { $0.contains("RTP delivery stalled: no RTCP receiver report progress for") }
        #expect(stallLine?.contains("unacknowledged") == true, "one line names the evidence: \(serve.process.errorOutput.suffix(2000))")
        print("RTP stall line: \(stallLine ?? "none")")

        receiver.kill(signal: SIGCONT)
        let resumedAt = Date()
        let recovered = try Self.poll(serve, seconds: 20, log: &log) { $0.reporting.health == "healthy" }
        #expect(recovered != nil, "healthy again when the reports resume: \(log.map { $0.reporting.health ?? "-" })")
        #expect(serve.process.errorOutput.contains("RTP delivery healthy again"))
        let last = try #require(log.last)
        let delivery = last.reporting.delivery
        #expect(delivery["evidence"] as? String == "RTCP receiver report", "\(delivery)")
        #expect(((delivery["seconds"] as? [String: Double])?["stalled"] ?? 0) > 0, "the report counts the stalled time: \(delivery)")
        #expect(delivery["reconnectCauses"] as? [String: Int] == [:], "RTP has no connection to renew: \(delivery)")
        let sent = delivery["bytesSent"] as? Int ?? 0, acknowledged = delivery["bytesAcknowledged"] as? Int ?? 0
        #expect(sent > 50_000 && acknowledged > 0 && acknowledged <= sent, "\(delivery)")

        // The silent receiver's output never had evidence: unknown, never stalled, and the report says why.
        #expect(log.allSatisfy { $0.silent.health == nil }, "\(log.map { $0.silent.health ?? "-" })")
        #expect((last.silent.delivery["unknownBecause"] as? String)?.contains("no RTCP receiver report") == true, "\(last.silent.delivery)")
        #expect((last.silent.delivery["bytesSent"] as? Int ?? 0) > 50_000, "\(last.silent.delivery)")
        print(String(format: "RTP stall reported %.2f s after rtpbin paused (stall_timeout %.0f s), healthy %.2f s after it resumed",
                     stallSeconds ?? -1, stallTimeout, recovered.map { $0.at.timeIntervalSince(resumedAt) } ?? -1))

        // /metrics: the reporting output's current state is 1; the silent one has no state (all five 0).
        let health = try Curl.body(["\(serve.baseURL)/metrics"]).split(separator: "\n").filter { $0.hasPrefix("livepush_output_health{") }
        let silentSeries = health.filter { $0.contains(#"output="silent""#) }
        #expect(silentSeries.count == 5 && silentSeries.allSatisfy { $0.hasSuffix(" 0.0") }, "\(health)")
        let current = health.filter { $0.contains(#"output="reporting""#) && $0.hasSuffix(" 1.0") }
        #expect(current.count == 1 && current.first?.contains(#"state="healthy""#) == true, "\(health)")

        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1500))")
        // SIGKILL: the receivers inherit the test runner's blocked signals, so a SIGINT would only
        // wait out its timeout.
        for peer in [receiver, bare] {
            peer.kill(signal: SIGKILL)
            #expect(peer.wait(timeoutSeconds: 5) != nil, "the receiver ended")
        }
    }

    /// `--rtp`'s URL query carries the output's `local_port` and `stall_timeout` into the config.
    @Test func theRTPURLQueryBecomesTheOutputsKeys() throws {
        let printed = try ExternalTool.run(try LivepushBinary.path(), [
            "stream", "--print-config", "--rtp", "rtp://127.0.0.1:5004?local_port=5010&stall_timeout=8s",
        ], timeoutSeconds: 30).output
        let rtpOutput = printed.components(separatedBy: "- rtp:").dropFirst().first ?? ""
        #expect(rtpOutput.contains("destination: 127.0.0.1:5004") && rtpOutput.contains("local_port: 5010")
                && rtpOutput.contains("stall_timeout: 8s"), "\(printed)")
        let refused = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--print-config", "--rtp", "rtp://127.0.0.1:5004?ttl=4"],
                                           timeoutSeconds: 30, check: false)
        #expect(refused.status != 0 && refused.errorOutput.contains("unknown option 'ttl=4'"), "\(refused.errorOutput)")
    }
}
