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

    /// Where the checks leave their screenshots (kept after the run).
    static var screenshots: String { LivepushBinary.repository.appendingPathComponent(".build-serve/dashboard-screenshots").path }

    /// `livepush serve` of one test-pattern camera recording to `directory`, with `extra` YAML lines
    /// at the top, `renditions` (entries of its list) and `outputs` added to the recording.
    static func serve(in directory: TemporaryDirectory, extra: String = "", renditions: [String] = [], outputs: [String] = []) throws -> ServeUnderTest {
        try ServeUnderTest(yaml: """
            listen: 127.0.0.1:0
            \(extra)
            cameras:
              - id: cam0
                source: testpattern
                size: 640x360
                fps: 15
                encoder: {bitrate: 500k, preset: ultrafast}
            """ + "\n" + (renditions.isEmpty ? "" : "    renditions:" + renditions.map { "\n      - \($0)" }.joined() + "\n") + """
                outputs:
                  - record: {path: \(directory.file("cam0.mp4"))}
            """ + outputs.map { "\n      - \($0)" }.joined())
    }

    /// Runs a Selenium script of Tests/EndToEndTests/Serve/Dashboard against `serve` (stopping it afterwards)
    /// and returns the JSON object it printed last.
    static func check(_ script: String, _ arguments: [String], serve: ServeUnderTest, timeoutSeconds: Double) throws -> [String: Any] {
        try ExternalTool.require("chromium"); try ExternalTool.require("chromedriver")
        try FileManager.default.createDirectory(atPath: screenshots, withIntermediateDirectories: true)
        let path = LivepushBinary.repository.appendingPathComponent("Tests/EndToEndTests/Serve/Dashboard/\(script)").path
        let run = try ExternalTool.run(try python(), [path] + arguments + [screenshots], timeoutSeconds: timeoutSeconds, check: false)
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
        let line = run.output.split(separator: "\n").last.map(String.init) ?? ""
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(run.output) \(run.errorOutput)")
    }

    @Test func dashboardShowsStatsAndStopsAnOutput() throws {
        let directory = try TemporaryDirectory()
        let serve = try Self.serve(in: directory, renditions: ["{name: main}", "{name: small, size: 320x180, bitrate: 200k}"])
        let shots = Self.screenshots
        let result = try Self.check("dashboard_check.py", [serve.baseURL + "/"], serve: serve, timeoutSeconds: 90)
        print("dashboard screenshots in \(shots): \(result)")
        #expect(result["ok"] as? Bool == true, "\(result)")
        #expect(result["cameras"] as? Int == 1)
        #expect(result["graph"] as? Bool == true)
        #expect(result["previewSlot"] as? String == "/whep/cam0")
        #expect(result["connection"] as? String == "live")
        #expect(result["outputStateAfterClick"] as? String == "stopped", "the button press reached the API")
        #expect((result["stoppedBadgeTitle"] as? String)?.hasPrefix("stopped through the API") == true, "the badge says why: \(result)")
        #expect(result["outputStateAfterStart"] as? String == "running", "the Start button started it again: \(result)")
        #expect(result["renditionRows"] as? [String] == ["main 640×360", "small 320×180"], "camera → renditions: \(result)")
        #expect((result["recordRowText"] as? String)?.hasSuffix("[main]") == true, "the output names its rendition: \(result)")
        #expect((result["recordRowTitle"] as? String)?.hasSuffix("/cam0.mp4") == true, "the recording names its file on hover: \(result)")
        #expect((result["phoneOverflow"] as? Int ?? 99) <= 0, "no sideways scrolling on a phone")
        #expect(FileManager.default.fileExists(atPath: "\(shots)/dashboard-phone.png"))
    }

    /// A page on another origin (a second local HTTP server) tries fetch, sendBeacon, a form POST,
    /// a CORS read against the API and a frame of the dashboard, on an open server and on one with tokens where the admin is
    /// logged in in the same browser: nothing changes and nothing is read. On its own origin the
    /// dashboard works for the viewer (read-only, snapshot, live preview) and the admin (controls).
    @Test(arguments: [false, true]) func otherOriginsCannotDriveTheServer(tokens: Bool) throws {
        let directory = try TemporaryDirectory()
        let (admin, viewer) = ("8d265e36ed96189e431f57b2290fcaf1", "515a601555fce5eba6a6baaede4672fe")
        let serve = try Self.serve(in: directory, extra: tokens ? "api_token: \(admin)\nviewer_token: \(viewer)" : "", outputs: ["whep: {max_viewers: 4}"])
        let result = try Self.check("cross_origin_check.py", [serve.baseURL, tokens ? admin : "-", tokens ? viewer : "-"], serve: serve, timeoutSeconds: 150)
        print("cross-origin check (tokens: \(tokens)): \(result)")
        #expect(result["ok"] as? Bool == true, "\(result)")
        #expect(result["recordStateAfterAttack"] as? String == "running", "no cross-site request stopped the output: \(result)")
        #expect(result["targetBitrateAfterAttack"] as? Int == 500_000, "no cross-site request changed the bitrate: \(result)")
        let attack = result["attack"] as? [String: Any] ?? [:]
        #expect(attack["corsRead"] as? String == "blocked", "the page could not read the status: \(attack)")
        #expect(attack["whepOffer"] as? String == "blocked", "the page could not post a WHEP offer and read the answer: \(attack)")
        #expect(attack["framed"] as? String == "blocked", "the page could not frame the dashboard (clickjacking): \(attack)")
        #expect(result["policyViolations"] as? [String] == [], "the dashboard works under its Content-Security-Policy: \(result)")
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

    /// With tokens set, a page on an origin in `cors_origins` (another local port) plays the camera
    /// over WHEP with the viewer's token: Chromium's CORS preflight, which carries no token, passes
    /// the role check; the offer gets its answer, the video plays, and the DELETE goes through.
    @Test func anAllowedOriginPlaysWHEPWithTheViewersToken() throws {
        let directory = try TemporaryDirectory()
        let pagePort = try Self.freePort()
        let (admin, viewer) = ("a9b664d415f7765ddbef685809a9ce54", "e31547d60e231800da68b6f7a32a8989")
        let serve = try Self.serve(in: directory, extra: "api_token: \(admin)\nviewer_token: \(viewer)\ncors_origins: ['http://127.0.0.1:\(pagePort)']",
                                   outputs: ["whep: {max_viewers: 4}"])
        let result = try Self.check("cors_whep_check.py", [serve.baseURL, "\(pagePort)", viewer], serve: serve, timeoutSeconds: 120)
        print("WHEP from an allowed origin: \(result)")
        #expect(result["ok"] as? Bool == true && result["started"] as? Bool == true, "\(result)")
        #expect(result["videoWidth"] as? Int == 640, "the video played: \(result)")
        #expect(result["left"] as? Bool == true, "\(result)")
    }

    /// A TCP port free now on 127.0.0.1 (the kernel's pick), for a page server the config must name before it starts.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard descriptor >= 0, bound else { throw LoopbackNamespace.Failure(description: "no free port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
