import Foundation
import Testing
import TestSupport

/// `start: false` on the real `livepush serve`: a camera records while its RTMP output to nginx-rtmp
/// stays configured but stopped (nginx sees no connection, status and metrics say stopped and why);
/// the API's start publishes to nginx, whose FLV ffprobe reads back; the API's stop ends it. An
/// `on_demand` camera whose only output is configured stopped idles until the API starts it.
@Suite(.serialized) struct StartStoppedProcessTests {
    @Test func anOutputConfiguredStoppedRunsOnlyBetweenTheAPIsStartAndStop() throws {
        let nginx = try NginxRTMPServer()
        let directory = try TemporaryDirectory()
        let recording = directory.file("cam0.mp4")
        let onDemandRecording = directory.file("yard.mp4")
        let encoder = "{name: libx264, bitrate: 800k, keyint: 1s, preset: ultrafast}"
        let yaml = ServeYAML.config([
            ServeYAML.camera("cam0", encoder: encoder, outputs: [
                "record: {path: \(recording)}",
                "rtmp: {url: rtmp://127.0.0.1:\(nginx.port)/live, key: event, id: youtube, start: false}",
            ]),
            ServeYAML.camera("yard", encoder: encoder, keys: ["on_demand: true", "on_demand_idle: 1s"],
                             outputs: ["record: {path: \(onDemandRecording), start: false}"]),
        ])
        let serve = try ServeUnderTest(yaml: yaml, in: directory)
        let checked = try ExternalTool.run(try LivepushBinary.path(), ["check-config", serve.config], timeoutSeconds: 20).output
        #expect(checked.contains("youtube: rtmp → rtmp://127.0.0.1:\(nginx.port)/live/***, starts stopped (start it through the API)"), "\(checked)")
        #expect(!checked.contains("record: record → \(recording), starts stopped"), "\(checked)")
        let output = { (id: String) in ((try? serve.cameraStatus("cam0"))?["outputs"] as? [[String: Any]])?.first { $0["id"] as? String == id } }
        let connects = {
            ((try? String(contentsOfFile: nginx.directory.file("logs/error.log"), encoding: .utf8)) ?? "")
                .components(separatedBy: "\n").filter { $0.contains("connect: app='live'") }.count
        }

        // The camera runs and records; the configured-stopped output stays away from nginx.
        #expect(serve.process.waitUntil(timeoutSeconds: 15) { (output("record")?["framesSent"] as? Int ?? 0) > 30 },
                "\(String(describing: output("record"))) \(serve.process.errorOutput.suffix(1500))")
        Thread.sleep(forTimeInterval: 3)
        #expect(nginx.recordings.isEmpty && connects() == 0, "nginx got a connection from a stopped output: \(nginx.recordings)")
        let stopped = try #require(output("youtube"))
        #expect(stopped["state"] as? String == "stopped", "\(stopped)")
        #expect(stopped["stateReason"] as? String == "configured to start stopped (start: false); start it through the API or the dashboard", "\(stopped)")
        #expect(stopped["framesSent"] as? Int == 0 && stopped["bytesSent"] as? Int == 0, "\(stopped)")
        let metrics = try Curl.body(["\(serve.baseURL)/metrics"])
        #expect(metrics.contains(#"livepush_output_up{camera="cam0",output="youtube",kind="rtmp"} 0"#), "\(metrics.prefix(3000))")
        #expect(metrics.contains(#"livepush_output_up{camera="cam0",output="record",kind="record"} 1"#), "\(metrics.prefix(3000))")

        // Started through the API: nginx gets the publish and video.
        let api = "\(serve.baseURL)/api/cameras/cam0/outputs/youtube"
        #expect(try Curl.status(["-X", "POST", "\(api)/start"]) == "200")
        #expect(serve.process.waitUntil(timeoutSeconds: 15) { (output("youtube")?["framesSent"] as? Int ?? 0) > 60 },
                "\(String(describing: output("youtube"))) \(serve.process.errorOutput.suffix(1500))")
        let running = try #require(output("youtube"))
        #expect(running["state"] as? String == "running" && running["stateReason"] as? String == nil, "\(running)")

        // Stopped through the API: the publish ends, nothing more reaches nginx.
        #expect(try Curl.status(["-X", "POST", "\(api)/stop"]) == "200")
        let afterStop = try #require(output("youtube"))
        #expect(afterStop["state"] as? String == "stopped", "\(afterStop)")
        #expect((afterStop["stateReason"] as? String)?.hasPrefix("stopped through the API") == true, "\(afterStop)")
        nginx.waitForRecordingsToSettle()
        let files = nginx.recordings
        try #require(files.count == 1, "one publish, between start and stop: \(files)")
        let settledSize = try FileManager.default.attributesOfItem(atPath: files[0])[.size] as? Int
        Thread.sleep(forTimeInterval: 2)
        #expect(try FileManager.default.attributesOfItem(atPath: files[0])[.size] as? Int == settledSize, "the FLV grew after the stop")
        #expect(nginx.recordings.count == 1 && connects() == 1, "no new publish after the stop")

        // On demand: the stopped recording does not want the camera; started, it does; stopped, the camera idles again.
        let yard = { try? serve.cameraStatus("yard") }
        #expect(yard()?["state"] as? String == "idle" && yard()?["stateReason"] as? String == "on demand, no viewer", "\(String(describing: yard()))")
        #expect(!FileManager.default.fileExists(atPath: onDemandRecording), "no recording before the API's start")
        let yardAPI = "\(serve.baseURL)/api/cameras/yard/outputs/record"
        #expect(try Curl.status(["-X", "POST", "\(yardAPI)/start"]) == "200")
        // Waits on what the recording output wrote, not on what the encoder made: on a busy machine
        // the output may start a few frames behind the camera.
        let yardRecord = { (yard()?["outputs"] as? [[String: Any]])?.first { $0["id"] as? String == "record" } }
        #expect(serve.process.waitUntil(timeoutSeconds: 15) { yard()?["state"] as? String == "running" && (yardRecord()?["framesSent"] as? Int ?? 0) > 30 },
                "\(String(describing: yard()))")
        #expect(try Curl.status(["-X", "POST", "\(yardAPI)/stop"]) == "200")
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { yard()?["state"] as? String == "idle" }, "\(String(describing: yard()))")

        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1500))")
        #expect(try FFmpegCLI.videoFrameCount(onDemandRecording) > 30, "the on-demand camera recorded while started")
        let stream = try #require((try FFmpegCLI.probe(files[0], extra: ["-select_streams", "v:0"])["streams"] as? [[String: Any]])?.first)
        #expect(stream["width"] as? Int == 640 && stream["height"] as? Int == 480, "\(stream)")
        #expect(try FFmpegCLI.videoFrameCount(files[0]) > 60, "nginx recorded the video the output sent")
        #expect(try FFmpegCLI.videoFrameCount(recording) > 150, "the recording ran throughout")
    }

    /// SIGHUP: an unchanged output keeps what the API did to it (started stays started, even though
    /// the config says `start: false`); an added `start: false` output stays stopped; an output whose
    /// settings changed is replaced and follows the config again.
    @Test func aReloadLeavesAnUnchangedOutputAsTheAPILeftIt() throws {
        let directory = try TemporaryDirectory()
        let (first, second, added) = (directory.file("a.mp4"), directory.file("b.mp4"), directory.file("c.mp4"))
        func yaml(bitrate: String, outputs: [String]) -> String {
            ServeYAML.config([ServeYAML.camera("cam0", encoder: "{name: libx264, bitrate: \(bitrate), keyint: 1s, preset: ultrafast}", outputs: outputs)])
        }
        let a = "record: {id: a, path: \(first), start: false}", b = "record: {id: b, path: \(second), start: false}"
        let serve = try ServeUnderTest(yaml: yaml(bitrate: "800k", outputs: [a, b]), in: directory)
        let output = { (id: String) in ((try? serve.cameraStatus("cam0"))?["outputs"] as? [[String: Any]])?.first { $0["id"] as? String == id } }
        let configured = "configured to start stopped (start: false); start it through the API or the dashboard"

        #expect(try Curl.status(["-X", "POST", "\(serve.baseURL)/api/cameras/cam0/outputs/a/start"]) == "200")
        #expect(serve.process.waitUntil(timeoutSeconds: 15) { (output("a")?["framesSent"] as? Int ?? 0) > 30 }, "\(String(describing: output("a")))")
        let sentBeforeReload = output("a")?["framesSent"] as? Int ?? 0

        // The bitrate changes in place and c is added; a and b are unchanged.
        #expect(try serve.reload(yaml: yaml(bitrate: "700k", outputs: [a, b, "record: {id: c, path: \(added), start: false}"])),
                "\(serve.process.errorOutput.suffix(1500))")
        #expect(serve.process.errorOutput.contains("outputs reloaded in place"), "\(serve.process.errorOutput.suffix(1500))")
        #expect(output("a")?["state"] as? String == "running", "started through the API, unchanged: kept running: \(String(describing: output("a")))")
        #expect((output("a")?["framesSent"] as? Int ?? 0) >= sentBeforeReload, "the same recording, not a new one")
        for id in ["b", "c"] {
            #expect(output(id)?["state"] as? String == "stopped" && output(id)?["stateReason"] as? String == configured, "\(String(describing: output(id)))")
        }
        #expect(!FileManager.default.fileExists(atPath: added), "the added output did not start")

        // a's settings change: it is replaced and, as configured, stays stopped.
        #expect(try serve.reload(yaml: yaml(bitrate: "700k", outputs: ["record: {id: a, path: \(first), segment: 10m, start: false}", b])),
                "\(serve.process.errorOutput.suffix(1500))")
        #expect(output("a")?["state"] as? String == "stopped" && output("a")?["stateReason"] as? String == configured, "\(String(describing: output("a")))")

        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1500))")
        #expect(try FFmpegCLI.videoFrameCount(first) > 30, "a recorded while started through the API")
        #expect(!FileManager.default.fileExists(atPath: second), "b never started")
    }
}
