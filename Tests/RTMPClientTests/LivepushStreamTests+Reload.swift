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
        Thread.sleep(forTimeInterval: 3)

        let added = directory.file("added.mp4")
        try writeConfig(bitrate: "800k", extraOutput: "      - record: {path: \(added)}")
        serve.kill(signal: SIGHUP)
        #expect(serve.waitUntil(timeoutSeconds: 10) { serve.errorOutput.contains("config reloaded") }, "\(serve.errorOutput.suffix(1500))")
        #expect(serve.errorOutput.contains(#""updated":"[\"cam0\"]""#), "applied in place: \(serve.errorOutput.suffix(1500))")
        #expect(serve.errorOutput.contains(#""kept":"[\"rtmp\"]""#) && serve.errorOutput.contains(#""added":"[\"record\"]""#),
                "\(serve.errorOutput.suffix(1500))")
        Thread.sleep(forTimeInterval: 4)
        serve.kill(signal: SIGTERM)
        #expect(serve.wait(timeoutSeconds: 15) == 0, "serve exits cleanly: \(serve.errorOutput.suffix(1500))")
        nginx.waitForRecordingsToSettle()

        let files = nginx.recordings
        try #require(files.count == 1, "one publish across the reload, recordings: \(files)")
        try Self.expectValidStream(files[0], minimumSeconds: 6.5, maximumSeconds: 12, forcedKeyFrames: true)
        let connects = try String(contentsOfFile: nginx.directory.file("logs/error.log"), encoding: .utf8)
            .components(separatedBy: "\n").filter { $0.contains("connect: app='live'") }
        #expect(connects.count == 1, "nginx saw one connection: \(connects)")
        #expect(try FFmpegCLI.videoFrameCount(added) > 60, "the added recording started at the reload")
    }
}
