import Foundation
import Testing
import TestSupport

extension LivepushStreamTests {
    static let stallTimeoutSeconds = 3.0

    /// `livepush serve` publishing to nginx-rtmp through `host:port`, with a 3 s stall timeout and a
    /// short reconnect backoff.
    static func serveHealth(to port: Int, key: String) throws -> LivepushServe {
        try LivepushServe(directory: try TemporaryDirectory(), cameras: """
          - id: cam0
            source: testpattern
            size: \(width)x\(height)
            fps: 30
            encoder: {bitrate: 1000k, keyint: 2s, preset: ultrafast}
            outputs:
              - rtmp: {url: rtmp://127.0.0.1:\(port)/live, key: \(key), stall_timeout: \(Int(stallTimeoutSeconds))s,
                       reconnect: {delay: 0.2s, max_delay: 1s}}
        """)
    }

    /// Bytes nginx acknowledged so far (`/api/status`), 0 while it answers nothing.
    static func acknowledged(_ serve: LivepushServe) -> Int {
        (serve.output("rtmp")?["delivery"] as? [String: Any])?["bytesAcknowledged"] as? Int ?? 0
    }

    /// A proxy in front of nginx-rtmp stops forwarding both ways without closing, once nginx's RTMP
    /// Acknowledgements have reached livepush (the witness the stall is then called by). The output's health
    /// in `/api/status` turns `stalled` (not before the timeout, within a few checks after it), the
    /// output reconnects by itself through a fresh connection, and nginx records a second publish that
    /// starts with a keyframe and continues the frames. The delivery report counts one reconnect
    /// caused by the stall and a gap of at least the timeout.
    @Test func aStalledRTMPOutputIsReportedAndReconnects() throws {
        let nginx = try NginxRTMPServer(dropIdlePublisherSeconds: 2)
        let proxy = try StallingProxy(to: nginx.port)
        defer { proxy.close() }
        let serve = try Self.serveHealth(to: proxy.port, key: "stall")
        defer { serve.close() }
        let health = { serve.output("rtmp")?["health"] as? String }
        // A steady state first: healthy, with nginx's acknowledgements (the evidence the stall takes away)
        // reaching livepush. The proxy counts those it passed on: livepush's own count is no proof of them,
        // since until the first RTMP Acknowledgement a connection is judged by TCP_INFO's bytes acknowledged
        // (the proxy's kernel), and a stall then is called by that witness ("no TCP acknowledgement").
        #expect(serve.process.waitUntil(timeoutSeconds: 20) {
            proxy.acknowledgementsForwarded > 0 && Self.acknowledged(serve) > 0 && health() == "healthy"
        }, "acknowledgements forwarded: \(proxy.acknowledgementsForwarded); \(serve.process.errorOutput.suffix(1500))")

        proxy.stall()
        let stalledAt = Date()
        // A bound on a hang only: when the stall shows depends on the bitrate (how soon more than an
        // acknowledgement window is owed); the output's own clock below says how late it was called.
        #expect(serve.process.waitUntil(timeoutSeconds: 30) { health() == "stalled" },
                "\(String(describing: serve.output("rtmp"))); \(serve.process.errorOutput.suffix(1500))")
        let detectedSeconds = Date().timeIntervalSince(stalledAt)
        // Acknowledgements already in flight may arrive after the stall; none may be missing before the timeout.
        #expect(detectedSeconds >= Self.stallTimeoutSeconds - 0.6, "stalled after \(detectedSeconds) s")
        // Called within two checks (500 ms apart) after the timeout, by the output's silence.
        let logLine = serve.process.errorOutput.split(separator: "\n").first { $0.contains("stalled: no RTMP acknowledgement") } ?? ""
        let silence = logLine.firstMatch(of: /no RTMP acknowledgement for ([\d.]+) s/).flatMap { Double($0.1) }
        #expect(silence.map { $0 >= Self.stallTimeoutSeconds && $0 <= Self.stallTimeoutSeconds + 1 } == true, "\(serve.process.errorOutput.suffix(1500))")

        #expect(serve.process.waitUntil(timeoutSeconds: 20) { health() == "healthy" && proxy.connectionCount >= 2 },
                "reconnected: \(String(describing: serve.output("rtmp"))); \(serve.process.errorOutput.suffix(1500))")
        print("stall reported after \(String(format: "%.1f", detectedSeconds)) s, healthy again after "
              + "\(String(format: "%.1f", Date().timeIntervalSince(stalledAt))) s (stall timeout \(Self.stallTimeoutSeconds) s): \(logLine)")
        // The second publish carries frames before the stop (read back below).
        #expect(Self.waitForPackets(atLeast: Int(Self.fps), timeoutSeconds: 20) { nginx.recordings.dropFirst().first }, "\(nginx.recordings)")
        let output = try #require(serve.output("rtmp"))
        let delivery = try #require(output["delivery"] as? [String: Any])
        #expect(delivery["reconnectCauses"] as? [String: Int] == ["stalled": 1], "\(delivery)")
        #expect(output["reconnects"] as? Int == 1, "\(output)")
        let seconds = delivery["seconds"] as? [String: Double] ?? [:]
        #expect((seconds["stalled"] ?? 0) > 0, "\(delivery)")
        #expect((delivery["longestGapSeconds"] as? Double ?? 0) >= Self.stallTimeoutSeconds, "\(delivery)")
        let sent = delivery["bytesSent"] as? Int ?? 0, acknowledged = delivery["bytesAcknowledged"] as? Int ?? 0
        #expect(acknowledged > 0 && acknowledged < sent, "the stalled path's last bytes were never acknowledged: \(delivery)")
        #expect(serve.stop() == 0, "serve exits cleanly: \(serve.process.errorOutput.suffix(1500))")
        nginx.waitForRecordingsToSettle()

        let files = nginx.recordings
        try #require(files.count == 2, "recordings: \(files)")
        let after = try FLVInspection(path: files[1])
        #expect(after.packets.first?.isKey == true, "the new publish starts with a keyframe")
        let before = try FLVInspection.frameNumbers(of: files[0], width: Self.width, height: Self.height).compactMap { $0 }
        let resumed = try FLVInspection.frameNumbers(of: files[1], width: Self.width, height: Self.height)
        #expect((before.last ?? 0) < (resumed.first.flatMap { $0 } ?? 0), "frames after the reconnect continue the stream")
        #expect(FLVInspection.inOrder(resumed))
    }

    /// Plain nginx-rtmp for 8 s: the output is healthy at every look (no false stall), nginx
    /// acknowledges what it got (it honours the window livepush asks for), and nothing reconnects.
    @Test func aHealthyRTMPOutputStaysHealthy() throws {
        let nginx = try NginxRTMPServer()
        let serve = try Self.serveHealth(to: nginx.port, key: "healthy")
        defer { serve.close() }
        let health = { serve.output("rtmp")?["health"] as? String }
        // A steady state first: the connection's start (a new one is healthy before nginx acknowledged anything) is not what this judges.
        #expect(serve.process.waitUntil(timeoutSeconds: 20) { Self.acknowledged(serve) > 0 && health() == "healthy" },
                "\(serve.process.errorOutput.suffix(1500))")
        var seen: [String] = []
        for _ in 0..<40 {
            seen.append(health() ?? "none")
            Thread.sleep(forTimeInterval: 0.2)
        }
        #expect(Set(seen) == ["healthy"], "\(seen)")
        let metrics = try ExternalTool.run("curl", ["-sf", "-m", "3", "http://127.0.0.1:\(serve.port)/metrics"], timeoutSeconds: 10).output
        let healthLines = metrics.split(separator: "\n").filter { $0.hasPrefix("livepush_output_health{") }
        let current = healthLines.filter { $0.hasSuffix(" 1.0") }
        #expect(healthLines.count == 5 && current.count == 1 && current.first?.contains(#"state="healthy""#) == true, "\(healthLines)")
        let output = try #require(serve.output("rtmp"))
        let delivery = try #require(output["delivery"] as? [String: Any])
        #expect(delivery["reconnectCauses"] as? [String: Int] == [:], "\(delivery)")
        let sent = delivery["bytesSent"] as? Int ?? 0, acknowledged = delivery["bytesAcknowledged"] as? Int ?? 0
        // nginx acknowledges every window livepush asks for (an eighth of a second at 1 Mbit/s, 15.6 KB):
        // what it has not acknowledged yet is less than a window and what is in flight.
        #expect(sent > 100_000 && sent - acknowledged < 15_625 + 16_384, "\(delivery)")
        #expect((delivery["longestGapSeconds"] as? Double ?? 99) < Self.stallTimeoutSeconds / 2, "never degraded: \(delivery)")
        #expect(serve.stop() == 0, "serve exits cleanly: \(serve.process.errorOutput.suffix(1500))")
    }
}
