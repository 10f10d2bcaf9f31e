import Foundation
import TestSupport
import Testing

/// Each simulator fault against the real binary: the error a user sees, and recovery.
@Suite(.serialized)
struct CameraFaultTests {
    /// Runs `livepush run --json-events` while `script` changes faults, then stops it with SIGINT
    /// (it must exit cleanly). The script waits on what the camera reported (``LiveRun``), never
    /// on time: a slow start on a busy machine only makes a run longer. `--duration` only bounds a
    /// run the test lost track of.
    static func runWhile(_ faults: FaultFile, arguments: [String] = [], environment: [String: String] = [:],
                         script: (LiveRun) throws -> Void) throws -> [[String: Any]] {
        let process = try BackgroundProcess(SimCamera.script, ["--", try LivepushBinary.path(), "run", "--source", "/dev/video-sim0",
                                                              "--duration", "90", "--json-events"] + arguments,
                                            environment: faults.environment.merging(environment) { $1 })
        try script(LiveRun(process: process))
        process.kill(signal: SIGINT)
        #expect(process.wait(timeoutSeconds: 20) == 0, "livepush run stops cleanly on SIGINT: \(process.errorOutput.suffix(2000))")
        return SimCamera.events(process.output)
    }

    /// A `run --json-events` in progress, for a script to wait on.
    struct LiveRun {
        let process: BackgroundProcess

        var events: [[String: Any]] { SimCamera.events(process.output) }

        /// The latest status event's value of `key` (frames, dropped), 0 before any.
        func latest(_ key: String) -> Int { events.last { $0["event"] as? String == "status" }?[key] as? Int ?? 0 }

        /// Waits (bounded) until `condition` holds of the events so far; records an issue if it never does.
        func waitUntil(_ what: String, timeoutSeconds: Double = 30, _ condition: ([[String: Any]]) -> Bool) {
            #expect(process.waitUntil(timeoutSeconds: timeoutSeconds) { condition(events) }, "never \(what): \(events.suffix(6))\n\(process.errorOutput.suffix(1500))")
        }

        /// Waits until the latest status counts more than `count` frames.
        func waitForFrames(above count: Int) { waitUntil("more than \(count) frames") { _ in latest("frames") > count } }
    }

    static func frames(_ event: [String: Any]) -> Int { event["frames"] as? Int ?? 0 }

    @Test func permissionDeniedNamesTheVideoGroup() throws {
        let faults = try FaultFile(["/dev/video-sim0 eacces"])
        let result = try SimCamera.run(["snapshot", "--source", "/dev/video-sim0", "-o", "/tmp/unused.png"], environment: faults.environment)
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("'video' group"), "\(result.errorOutput)")
    }

    @Test func busyNamesTheDevice() throws {
        for fault in ["busy", "busy streamon"] {
            let faults = try FaultFile(["/dev/video-sim0 \(fault)"])
            let result = try SimCamera.run(["snapshot", "--source", "/dev/video-sim0", "-o", "/tmp/unused.png"], environment: faults.environment)
            #expect(result.status != 0)
            #expect(result.errorOutput.contains("/dev/video-sim0 is busy"), "\(fault): \(result.errorOutput)")
            #expect(result.errorOutput.contains("another program"))
        }
    }

    @Test func missingCameraSaysHowToList() throws {
        let result = try SimCamera.run(["snapshot", "--source", "/dev/video-sim7", "-o", "/tmp/unused.png"])
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("livepush devices"))
    }

    @Test func unplugWhileStreamingRecoversAfterReplug() throws {
        let faults = try FaultFile()
        let events = try Self.runWhile(faults) { run in
            run.waitForFrames(above: 10)
            try faults.set(["/dev/video-sim0 unplug"])
            run.waitUntil("reported the unplug") { $0.contains { $0["kind"] as? String == "deviceUnplugged" } }
            try faults.set([])
            let atReplug = run.latest("frames")
            run.waitForFrames(above: atReplug + 20)
        }
        let errorIndex = try #require(events.firstIndex { $0["kind"] as? String == "deviceUnplugged" }, "\(events)")
        let resumed = try #require(events[errorIndex...].firstIndex { $0["event"] as? String == "started" }, "no re-open after replug")
        let before = events[..<resumed].filter { $0["event"] as? String == "status" }.map(Self.frames).max() ?? 0
        let last = try #require(events.last { $0["event"] as? String == "status" })
        #expect(before > 10, "frames flowed before the unplug")
        #expect(Self.frames(last) > before + 20, "frames resumed after the replug")
        #expect(last["timestampRegressions"] as? Int == 0)
        #expect(last["codeMismatches"] as? Int == 0)
    }

    @Test func stalledCameraIsRestartedAndReported() throws {
        let faults = try FaultFile()
        let events = try Self.runWhile(faults, arguments: ["--stall-timeout", "1"]) { run in
            run.waitForFrames(above: 10)
            try faults.set(["/dev/video-sim0 stall"])
            run.waitUntil("reported the stall") { $0.contains { $0["kind"] as? String == "stalled" } }
            try faults.set([])
            let atRecovery = run.latest("frames")
            run.waitForFrames(above: atRecovery + 20)
        }
        let errorIndex = try #require(events.firstIndex { $0["kind"] as? String == "stalled" }, "\(events)")
        #expect((events[errorIndex]["message"] as? String)?.contains("restarting") == true)
        #expect(events[errorIndex...].contains { $0["event"] as? String == "started" })
        let atError = events[..<errorIndex].filter { $0["event"] as? String == "status" }.map(Self.frames).max() ?? 0
        let last = try #require(events.last { $0["event"] as? String == "status" })
        #expect(Self.frames(last) > atError + 20, "frames resumed after the stall")
    }

    @Test func corruptMJPEGIsDroppedAndCounted() throws {
        let faults = try FaultFile(["/dev/video-sim0 corrupt-mjpeg 4"])
        let events = try Self.runWhile(faults, environment: ["LIVEPUSH_SIM_0_FORMATS": "MJPG"]) { run in
            run.waitUntil("dropped 10 frames") { _ in run.latest("dropped") >= 10 }
        }
        let started = try #require(events.first { $0["event"] as? String == "started" })
        #expect(started["pixelFormat"] as? String == "mjpeg")
        let last = try #require(events.last { $0["event"] as? String == "status" })
        let dropped = last["dropped"] as? Int ?? 0, frames = Self.frames(last)
        #expect(dropped >= 10, "about one in four frames is corrupt")
        #expect(frames >= 2 * dropped)
        #expect(!events.contains { $0["event"] as? String == "error" })
    }

    @Test func sequenceGapsAreCountedAsDrops() throws {
        let faults = try FaultFile(["/dev/video-sim0 drop-seq 2 10"])
        let events = try Self.runWhile(faults) { run in run.waitForFrames(above: 60) }
        let last = try #require(events.last { $0["event"] as? String == "status" })
        #expect((last["dropped"] as? Int ?? 0) >= 8, "2 lost every 10 frames")
    }

    @Test func switchingCamerasKeepsFramesFlowing() throws {
        let faults = try FaultFile()
        let events = try Self.runWhile(faults, arguments: ["--switch-to", "/dev/video-sim1", "--switch-after", "1.5"],
                                       environment: ["LIVEPUSH_SIM_DEVICES": "/dev/video-sim0,/dev/video-sim1",
                                                     "LIVEPUSH_SIM_1_SIZES": "640x480"]) { run in
            run.waitUntil("switched") { $0.contains { $0["event"] as? String == "switch" } }
            run.waitUntil("reported the second camera's frames") { _ in (run.events.last { $0["event"] as? String == "status" }?["width"] as? Int) == 640 }
            let atSwitch = run.latest("frames")
            run.waitForFrames(above: atSwitch + 30)
        }
        let started = events.filter { $0["event"] as? String == "started" }
        #expect(started.map { $0["width"] as? Int } == [1280, 640], "a started event reports the new camera's size")
        let switchIndex = try #require(events.firstIndex { $0["event"] as? String == "switch" })
        let before = events[..<switchIndex].filter { $0["event"] as? String == "status" }.map(Self.frames).max() ?? 0
        let last = try #require(events.last { $0["event"] as? String == "status" })
        #expect(before > 20)
        #expect(Self.frames(last) > before + 30, "frames keep flowing from the second camera")
        #expect(last["width"] as? Int == 640)
        #expect(last["timestampRegressions"] as? Int == 0, "timestamps stay monotonic across the switch")
        #expect(last["codeMismatches"] as? Int == 0)
    }
}
