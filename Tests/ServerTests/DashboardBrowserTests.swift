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

    /// A page on another origin (a second local HTTP server) tries fetch, sendBeacon, a form POST
    /// and a CORS read against the API, on an open server and on one with tokens where the admin is
    /// logged in in the same browser: nothing changes and nothing is read. On its own origin the
    /// dashboard works for the viewer (read-only, snapshot, live preview) and the admin (controls).
    @Test(arguments: [false, true]) func otherOriginsCannotDriveTheServer(tokens: Bool) throws {
        try ExternalTool.require("chromium"); try ExternalTool.require("chromedriver")
        let directory = try TemporaryDirectory()
        let (admin, viewer) = ("admin-9d2f71c4", "viewer-3b8e05a6")
        let serve = try ServeUnderTest(yaml: """
            listen: 127.0.0.1:0
            \(tokens ? "api_token: \(admin)\nviewer_token: \(viewer)" : "")
            cameras:
              - id: cam0
                source: testpattern
                size: 640x360
                fps: 15
                encoder: {bitrate: 500k, preset: ultrafast}
                outputs:
                  - record: {path: \(directory.file("cam0.mp4"))}
                  - whep: {max_viewers: 4}
            """)
        let shots = LivepushBinary.repository.appendingPathComponent(".build-serve/dashboard-screenshots").path
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        let script = LivepushBinary.repository.appendingPathComponent("Tests/ServerTests/Dashboard/cross_origin_check.py").path
        let run = try ExternalTool.run(try Self.python(), [script, serve.baseURL, tokens ? admin : "-", tokens ? viewer : "-", shots],
                                       timeoutSeconds: 150, check: false)
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
        let line = run.output.split(separator: "\n").last.map(String.init) ?? ""
        let result = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(run.output) \(run.errorOutput)")
        print("cross-origin check (tokens: \(tokens)): \(result)")
        #expect(result["ok"] as? Bool == true, "\(result)")
        #expect(result["recordStateAfterAttack"] as? String == "running", "no cross-site request stopped the output: \(result)")
        #expect(result["targetBitrateAfterAttack"] as? Int == 500_000, "no cross-site request changed the bitrate: \(result)")
        let attack = result["attack"] as? [String: Any] ?? [:]
        #expect(attack["corsRead"] as? String == "blocked", "the page could not read the status: \(attack)")
        #expect(attack["whepOffer"] as? String == "blocked", "the page could not post a WHEP offer and read the answer: \(attack)")
        #expect(result["recordStateAfterAdminClick"] as? String == "stopped", "the dashboard's own controls still work")
        if tokens {
            #expect(result["viewerRole"] as? String == "viewer")
            #expect(result["viewerSeesKeyframe"] as? Bool == false, "no admin controls for a viewer")
            #expect(result["viewerSnapshot"] as? Int == 200)
            #expect(result["viewerKeyframePost"] as? Int == 403)
            #expect((result["viewerPreviewWidth"] as? Int ?? 0) == 640, "the viewer's live preview plays over WHEP: \(result)")
            #expect(result["adminRole"] as? String == "admin")
            #expect(result["adminSeesKeyframe"] as? Bool == true)
        }
    }
}
