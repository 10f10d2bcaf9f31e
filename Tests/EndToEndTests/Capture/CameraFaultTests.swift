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

        /// Waits until the latest status has read more than `count` frame codes: the camera's own
        /// frames (the no-signal card, counted as frames too, carries none).
        func waitForCameraFrames(above count: Int) { waitUntil("more than \(count) frame codes") { _ in latest("codesRead") > count } }

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

    @Test func runOnAMissingCameraShowsTheCardUntilItIsPluggedIn() throws {
        // Unplugged before the start: stat and open say ENOENT, as for a camera never plugged in.
        let faults = try FaultFile(["/dev/video-sim0 unplug"])
        let events = try Self.runWhile(faults) { run in
            run.waitUntil("showed the card") { events in
                events.contains { $0["event"] as? String == "status" && $0["noSignal"] as? Bool == true && Self.frames($0) > 10 }
            }
            try faults.set([])
            run.waitUntil("read the camera's frame codes after the plug") { events in
                events.contains { $0["event"] as? String == "status" && $0["noSignal"] as? Bool == false && ($0["codesRead"] as? Int ?? 0) > 10 }
            }
        }
        let started = events.filter { $0["event"] as? String == "started" }
        let first = try #require(started.first, "\(events)")
        #expect((first["notes"] as? [String])?.contains { $0.hasPrefix("no signal") } == true, "started on the card: \(first)")
        let missing = try #require(events.first { $0["event"] as? String == "error" }, "\(events)")
        #expect(missing["kind"] as? String == "deviceNotFound")
        #expect((missing["message"] as? String)?.contains("/dev/video-sim0") == true)
        #expect(started.count >= 2 && (started.last?["notes"] as? [String])?.isEmpty == true, "a started event for the camera itself: \(started)")
        let last = try #require(events.last { $0["event"] as? String == "status" })
        #expect(last["noSignal"] as? Bool == false)
        #expect(last["timestampRegressions"] as? Int == 0, "timestamps advance from the cards to the camera")
        #expect(last["codeMismatches"] as? Int == 0)
    }

    /// `snapshot` captures through the same capturer as `run`, but takes no picture of the card.
    @Test(arguments: [["/dev/video-sim7"], ["/dev/video-sim0", "unplug"]])
    func snapshotOfAMissingCameraFailsNamingIt(device: [String]) throws {
        let faults = try FaultFile(device.count > 1 ? [device.joined(separator: " ")] : [])
        let directory = try TemporaryDirectory()
        let image = directory.file("x.png")
        let started = Date()
        let result = try SimCamera.run(["snapshot", "--source", device[0], "-o", image], environment: faults.environment)
        let seconds = Date().timeIntervalSince(started)
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("camera \(device[0]) not found"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("livepush devices"))
        #expect(!FileManager.default.fileExists(atPath: image), "no picture of the no-signal card")
        #expect(seconds < 8, "fails at open, not after --timeout's 10 s: \(seconds) s")
    }

    @Test func unplugWhileStreamingRecoversAfterReplug() throws {
        let faults = try FaultFile()
        let events = try Self.runWhile(faults) { run in
            run.waitForFrames(above: 10)
            try faults.set(["/dev/video-sim0 unplug"])
            run.waitUntil("reported the unplug") { $0.contains { $0["kind"] as? String == "deviceUnplugged" } }
            try faults.set([])
            run.waitForCameraFrames(above: run.latest("codesRead") + 20)
        }
        let errorIndex = try #require(events.firstIndex { $0["kind"] as? String == "deviceUnplugged" }, "\(events)")
        let resumed = try #require(events[errorIndex...].firstIndex { $0["event"] as? String == "started" }, "no re-open after replug")
        let before = events[..<resumed].filter { $0["event"] as? String == "status" }.map(Self.frames).max() ?? 0
        let last = try #require(events.last { $0["event"] as? String == "status" })
        #expect(before > 10, "frames flowed before the unplug")
        #expect(Self.frames(last) > before + 20, "frames resumed after the replug")
        let codesBefore = events[..<resumed].filter { $0["event"] as? String == "status" }.compactMap { $0["codesRead"] as? Int }.max() ?? 0
        #expect(last["codesRead"] as? Int ?? 0 > codesBefore + 20, "the camera's own frames, not only the no-signal card's")
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
            run.waitForCameraFrames(above: run.latest("codesRead") + 20)
        }
        let errorIndex = try #require(events.firstIndex { $0["kind"] as? String == "stalled" }, "\(events)")
        #expect((events[errorIndex]["message"] as? String)?.contains("restarting") == true)
        #expect(events[errorIndex...].contains { $0["event"] as? String == "started" })
        let atError = events[..<errorIndex].filter { $0["event"] as? String == "status" }.map(Self.frames).max() ?? 0
        let last = try #require(events.last { $0["event"] as? String == "status" })
        #expect(Self.frames(last) > atError + 20, "frames resumed after the stall")
        let codesAtError = events[..<errorIndex].filter { $0["event"] as? String == "status" }.compactMap { $0["codesRead"] as? Int }.max() ?? 0
        #expect(last["codesRead"] as? Int ?? 0 > codesAtError + 20, "the camera's own frames, not only the no-signal card's")
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
