import Foundation
import Testing
import TestSupport

/// `on_demand: true` on the real `livepush serve`, with simulated V4L2 cameras (scripts/v4l2sim,
/// whose node log shows each open and close of a camera): an unwatched camera has its device
/// closed and encodes nothing; a WHEP viewer (aiortc) or an output started through the API opens
/// it again, and the viewer gets frames; once they are gone and the idle grace passed it is closed again.
@Suite(.serialized) struct OnDemandProcessTests {
    static let door = "/dev/video-sim0", yard = "/dev/video-sim1"

    static func yaml(recording: String) -> String {
        let camera = { (id: String, source: String, outputs: [String]) in
            ServeYAML.camera(id, source: source, encoder: "{name: libx264, bitrate: 1M, keyint: 1}", keys: ["on_demand: true", "on_demand_idle: 1s"],
                             outputs: outputs)
        }
        return ServeYAML.config([camera("door", door, ["whep: {}"]), camera("yard", yard, ["whep: {}", "record: {path: \(recording)}"])])
    }

    @Test func aCameraRunsOnlyWhileAViewerOrAnOutputWantsIt() throws {
        let simulator = try V4L2Simulator()
        var environment = simulator.environment
        environment["LIVEPUSH_SIM_DEVICES"] = "\(Self.door),\(Self.yard)"
        let recording = simulator.directory.file("yard.mp4")
        let serve = try ServeUnderTest(yaml: Self.yaml(recording: recording), environment: environment)
        let status = { (camera: String) in try? serve.cameraStatus(camera) }
        let checked = try ExternalTool.run(try LivepushBinary.path(), ["check-config", serve.config], timeoutSeconds: 20)
        #expect(checked.output.contains("camera door: /dev/video-sim0 640x480 @ 30.0 fps, libx264 1000k keyint 1.0 s high, on demand (idle 1.0 s"),
                "\(checked.output)")

        // Idle at start: the device was opened once to check it, then closed; nothing is encoded.
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { status("door")?["state"] as? String == "idle" },
                "\(String(describing: status("door")))")
        let idle = try #require(status("door"))
        #expect(idle["stateReason"] as? String == "on demand, no viewer")
        #expect(simulator.openCount(Self.door) == 0, "\(simulator.nodeEvents(Self.door))")
        let opensWhileIdle = simulator.nodeEvents("\(Self.door) open").count
        let encodedWhileIdle = idle["framesEncoded"] as? Int
        Thread.sleep(forTimeInterval: 2)
        #expect(status("door")?["framesEncoded"] as? Int == encodedWhileIdle, "nothing encoded while idle")
        #expect(simulator.nodeEvents("\(Self.door) open").count == opensWhileIdle, "the device stayed closed")
        let metrics = try Curl.body(["\(serve.baseURL)/metrics"])
        #expect(metrics.contains("livepush_camera_idle{camera=\"door\"} 1"), "\(metrics.prefix(2000))")

        // A WHEP viewer starts it and gets frames (with their frame codes) from the camera.
        let viewer = try ExternalTool.run(try PythonPeers.python(), ["\(PythonPeers.scripts)/aiortc_whep.py", "\(serve.baseURL)/whep/door", "60", "25"],
                                          timeoutSeconds: 40, check: false)
        let result = try #require(PythonPeers.result(viewer.output), "\(viewer.output) \(viewer.errorOutput.suffix(1000))")
        #expect(result["postStatus"] as? Int == 201, "\(result)")
        #expect(result["frames"] as? Int == 60, "\(result)")
        #expect((result["codes"] as? Int ?? 0) > 0, "the frames are the camera's: \(result)")
        #expect(simulator.nodeEvents("\(Self.door) open").count > opensWhileIdle, "the viewer opened the device")

        // The viewer left (DELETE): after the 1 s grace the device is closed again.
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { status("door")?["state"] as? String == "idle" && simulator.openCount(Self.door) == 0 },
                "\(String(describing: status("door"))) \(simulator.nodeEvents(Self.door))")
        let onDemand = try #require(status("door")?["onDemand"] as? [String: Any])
        #expect(onDemand["starts"] as? Int == 1 && onDemand["stops"] as? Int == 2, "the stop at launch, the viewer's start and stop: \(onDemand)")

        // yard has a running recording, so it runs; stopped through the API, the camera idles; started, it runs again.
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { (status("yard")?["framesEncoded"] as? Int ?? 0) > 30 })
        #expect(simulator.openCount(Self.yard) == 1)
        let api = "\(serve.baseURL)/api/cameras/yard/outputs/record"
        #expect(try Curl.status(["-X", "POST", "\(api)/stop"]) == "200")
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { status("yard")?["state"] as? String == "idle" && simulator.openCount(Self.yard) == 0 },
                "\(String(describing: status("yard")))")
        let encodedBeforeStart = status("yard")?["framesEncoded"] as? Int ?? 0
        #expect(try Curl.status(["-X", "POST", "\(api)/start"]) == "200")
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { (status("yard")?["framesEncoded"] as? Int ?? 0) > encodedBeforeStart + 30 },
                "\(String(describing: status("yard")))")
        #expect(status("yard")?["state"] as? String == "running")
        #expect(simulator.openCount(Self.yard) == 1)
        #expect(status("door")?["state"] as? String == "idle", "door is not woken by yard")

        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
        #expect(serve.process.errorOutput.contains("on demand: capture stopped, camera idle"))
        #expect(try FFmpegCLI.videoFrameCount(recording) > 30, "the restarted recording is decodable")
    }
}
