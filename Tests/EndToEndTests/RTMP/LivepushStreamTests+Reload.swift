import Foundation
import Testing
import TestSupport

extension LivepushStreamTests {
    /// `livepush serve` publishing to nginx-rtmp gets SIGHUP with a config that lowers the bitrate and
    /// adds a recording. The RTMP output's settings did not change, so it stays on its one connection:
    /// nginx saw one publish, whose FLV runs across the reload with every frame code in order; the
    /// new recording starts at once.
    @Test func serveReloadKeepsAnUnchangedRTMPOutputOnItsConnection() throws {
        let nginx = try NginxRTMPServer()
        let directory = try TemporaryDirectory()
        let config = directory.file("serve.yaml")
        func writeConfig(bitrate: String, extraOutput: String = "") throws {
            try """
            listen: 127.0.0.1:0
            cameras:
              - id: cam0
                source: testpattern
                size: \(Self.width)x\(Self.height)
                fps: 30
                encoder: {bitrate: \(bitrate), keyint: 2s, preset: ultrafast}
                outputs:
                  - rtmp: {url: rtmp://127.0.0.1:\(nginx.port)/live, key: reload}
            \(extraOutput)
            """.write(toFile: config, atomically: true, encoding: .utf8)
        }
        try writeConfig(bitrate: "1000k")
        let serve = try BackgroundProcess(try LivepushBinary.path(), ["serve", "--config", config, "--log-format", "json"])
        #expect(LocalPort.waitUntil(15) { !nginx.recordings.isEmpty }, "nginx never recorded a publish: \(serve.errorOutput.suffix(1500))")
        // Waits on media, not seconds: 3 s of frames before the reload.
        #expect(Self.waitForPackets(atLeast: 3 * Int(Self.fps), timeoutSeconds: 30) { nginx.recordings.first }, "\(serve.errorOutput.suffix(1500))")

        let added = directory.file("added.mp4")
        try writeConfig(bitrate: "800k", extraOutput: "      - record: {path: \(added)}")
        serve.kill(signal: SIGHUP)
        #expect(serve.waitUntil(timeoutSeconds: 10) { serve.errorOutput.contains("config reloaded") }, "\(serve.errorOutput.suffix(1500))")
        #expect(serve.errorOutput.contains(#""updated":"[\"cam0\"]""#), "applied in place: \(serve.errorOutput.suffix(1500))")
        #expect(serve.errorOutput.contains(#""kept":"[\"rtmp\"]""#) && serve.errorOutput.contains(#""added":"[\"record\"]""#),
                "\(serve.errorOutput.suffix(1500))")
        // 4 s of frames after the reload (counted from a look taken after it, so no fewer follow it).
        let atReload = try FLVInspection(path: try #require(nginx.recordings.first)).packets.count
        #expect(Self.waitForPackets(atLeast: atReload + 4 * Int(Self.fps), timeoutSeconds: 30) { nginx.recordings.first }, "\(serve.errorOutput.suffix(1500))")
        // The output stopped through the API ends the FLV; the camera's counts then cover all of it.
        let api = try #require(serve.output.split(separator: "\n").first { $0.contains("dashboard at ") }?
            .split(separator: " ").first { $0.hasPrefix("http://") }.map { String($0.hasSuffix("/") ? $0.dropLast() : $0) }, "\(serve.output)")
        try ExternalTool.run("curl", ["-sf", "-m", "10", "-X", "POST", "\(api)/api/cameras/cam0/outputs/rtmp/stop"], timeoutSeconds: 20)
        let status = try JSONSerialization.jsonObject(with: Data(try Curl.body(["-f", "\(api)/api/status"]).utf8)) as? [String: Any]
        let camera = try #require((status?["cameras"] as? [[String: Any]])?.first, "\(String(describing: status))")
        let dropped = try #require(camera["droppedFrames"] as? [String: Int], "\(camera)")
        let rtmp = try #require((camera["outputs"] as? [[String: Any]])?.first { $0["id"] as? String == "rtmp" }, "\(camera)")
        let run = RunCounts(droppedBeforeEncoder: (dropped["capture"] ?? 0) + (dropped["encoder"] ?? 0),
                            ticks: (camera["framesEncoded"] as? Int ?? 0) + (dropped["capture"] ?? 0) + (dropped["encoder"] ?? 0),
                            sent: rtmp["framesSent"] as? Int, dropped: rtmp["droppedFrames"] as? Int)
        serve.kill(signal: SIGTERM)
        #expect(serve.wait(timeoutSeconds: 15) == 0, "serve exits cleanly: \(serve.errorOutput.suffix(1500))")
        nginx.waitForRecordingsToSettle()

        let files = nginx.recordings
        try #require(files.count == 1, "one publish across the reload, recordings: \(files)")
        // 3 s before the reload and 4 s after, in media time; at most the camera's run.
        try Self.expectValidStream(files[0], minimumSeconds: 7, maximumSeconds: Double(run.ticks) / Self.fps, forcedKeyFrames: true, run: run)
        let connects = try String(contentsOfFile: nginx.directory.file("logs/error.log"), encoding: .utf8)
            .components(separatedBy: "\n").filter { $0.contains("connect: app='live'") }
        #expect(connects.count == 1, "nginx saw one connection: \(connects)")
        #expect(try FFmpegCLI.videoFrameCount(added) > 60, "the added recording started at the reload")
    }
}
