import Foundation
import Testing
import TestSupport

/// The README's main job: `livepush serve` with no config (test pattern, libx264, built-in WHEP
/// viewer) and a real browser whose dashboard preview plays it — in a loopback-only namespace. The
/// preview asks for low latency, shows its capture-time latency, and with its consent box ticked
/// reports it to the server.
@Suite(.serialized) struct ServeDashboardPreviewTests {
    @Test
    func embeddedDefaultPlaysInTheDashboard() throws {
        try ExternalTool.require("chromium"); try ExternalTool.require("chromedriver")
        let python = try ExternalTool.run(LivepushBinary.repository.appendingPathComponent("scripts/test-venv").path, [], timeoutSeconds: 900)
            .output.trimmingCharacters(in: .whitespacesAndNewlines)
        let directory = try TemporaryDirectory()
        let peer = LivepushBinary.repository.appendingPathComponent("Tests/EndToEndTests/WebRTC/Peers/chromium_dashboard.py").path
        let script = """
            set -u
            '\(try LivepushBinary.path())' serve > '\(directory.file("serve.log"))' 2>&1 &
            LP=$!
            for i in $(seq 1 150); do grep -q "dashboard at" '\(directory.file("serve.log"))' && break; sleep 0.1; done
            timeout -k 5 55 '\(python)' '\(peer)' http://127.0.0.1:8080/ 30 '\(directory.file("dashboard.png"))' --report > '\(directory.file("peer.json"))' 2> '\(directory.file("peer.err"))'
            kill -TERM $LP; wait $LP
            """
        try script.write(toFile: directory.file("run.sh"), atomically: true, encoding: .utf8)
        try ExternalTool.run("unshare", ["--net", "sh", "-c", "ip link set lo up && bash '\(directory.file("run.sh"))'"], timeoutSeconds: 120)
        let log = (try? String(contentsOfFile: directory.file("serve.log"), encoding: .utf8)) ?? ""
        let output = (try? String(contentsOfFile: directory.file("peer.json"), encoding: .utf8)) ?? ""
        #expect(log.contains("livepush: dashboard at http://127.0.0.1:8080/"), "\(log.suffix(1500))")
        let line = try #require(output.split(separator: "\n").last, "no JSON from the browser: \((try? String(contentsOfFile: directory.file("peer.err"), encoding: .utf8)) ?? "")")
        let preview = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(preview["width"] as? Int == 1280 && preview["height"] as? Int == 720, "\(preview)")
        #expect((preview["playedSeconds"] as? Double ?? 0) > 2, "\(preview)")
        #expect(preview["label"] as? String == "Live preview (WebRTC/WHEP)", "\(preview)")
        #expect((preview["latency"] as? String)?.hasPrefix("capture time ") == true, "the preview's latency line: \(preview)")
        let reported = (preview["viewerLatency"] as? [String: Any])?["whep"] as? [String: Any] ?? [:]
        #expect(reported["viewersReporting"] as? Int == 1 && (reported["samples"] as? Int ?? 0) > 0, "the preview's reports: \(preview)")
        // The preview asks for low latency (web/whep.js): livepush's join line says so.
        let joined = log.split(separator: "\n").filter { $0.contains("WHEP viewer joined") }
        #expect(!joined.isEmpty && joined.allSatisfy { $0.contains("latency=low") }, "\(joined)\n\(log.suffix(1500))")
        #expect(FileManager.default.fileExists(atPath: directory.file("dashboard.png")))
    }
}
