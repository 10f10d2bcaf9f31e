import Foundation
import Testing
import TestSupport

/// The dashboard in real headless Chromium (Selenium, per the peers recipe): the page loads, stats
/// appear, pressing an output's Stop button reaches the API and changes its state, and desktop and
/// phone screenshots are taken (kept in the printed directory) and checked through DOM queries.
@Suite(.serialized) struct DashboardBrowserTests {
    /// A venv with selenium under the build folder, made once and reused.
    static func python() throws -> String {
        let venv = LivepushBinary.repository.appendingPathComponent(".build-serve/venv-dashboard").path
        let python = "\(venv)/bin/python"
        if !FileManager.default.isExecutableFile(atPath: python) {
            _ = try ExternalTool.run("python3", ["-m", "venv", venv], timeoutSeconds: 120)
        }
        if (try? ExternalTool.run(python, ["-c", "import selenium"], timeoutSeconds: 30)) == nil {
            _ = try ExternalTool.run(python, ["-m", "pip", "install", "-q", "selenium"], timeoutSeconds: 300)
        }
        return python
    }

    @Test func dashboardShowsStatsAndStopsAnOutput() throws {
        try ExternalTool.require("chromium"); try ExternalTool.require("chromedriver")
        let directory = try TemporaryDirectory()
        let port = 18_000 + Int(getpid() % 2000)
        let config = directory.file("livepush.yaml")
        try """
        listen: 127.0.0.1:\(port)
        cameras:
          - id: cam0
            source: testpattern
            size: 640x360
            fps: 15
            encoder: {bitrate: 500k, preset: ultrafast}
            outputs:
              - record: {path: \(directory.file("cam0.mp4"))}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let serve = try BackgroundProcess(try LivepushBinary.path(), ["serve", "--config", config])
        #expect(serve.waitUntil(timeoutSeconds: 20) { serve.output.contains("dashboard at http://127.0.0.1:\(port)/") }, "\(serve.errorOutput)")
        let shots = LivepushBinary.repository.appendingPathComponent(".build-serve/dashboard-screenshots").path
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        let script = LivepushBinary.repository.appendingPathComponent("Tests/ServerTests/Dashboard/dashboard_check.py").path
        let run = try ExternalTool.run(try Self.python(), [script, "http://127.0.0.1:\(port)/", shots], timeoutSeconds: 90, check: false)
        serve.kill(signal: SIGTERM)
        #expect(serve.wait(timeoutSeconds: 15) == 0)
        let line = run.output.split(separator: "\n").last.map(String.init) ?? ""
        let result = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(run.output) \(run.errorOutput)")
        print("dashboard screenshots in \(shots): \(result)")
        #expect(result["ok"] as? Bool == true, "\(result)")
        #expect(result["cameras"] as? Int == 1)
        #expect(result["graph"] as? Bool == true)
        #expect(result["previewSlot"] as? String == "/whep/cam0")
        #expect(result["connection"] as? String == "live")
        #expect(result["outputStateAfterClick"] as? String == "stopped", "the button press reached the API")
        #expect((result["phoneOverflow"] as? Int ?? 99) <= 0, "no sideways scrolling on a phone")
        #expect(FileManager.default.fileExists(atPath: "\(shots)/dashboard-phone.png"))
    }
}
