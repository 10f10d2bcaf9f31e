import Foundation
import TestSupport
import Testing

/// Each simulator fault against the real binary: the error a user sees, and recovery.
@Suite(.serialized)
struct CameraFaultTests {
    /// Runs `livepush run --json-events` for `duration` seconds while `script` changes faults.
    static func runWhile(_ faults: FaultFile, arguments: [String] = [], environment: [String: String] = [:], duration: Double,
                         script: @escaping @Sendable () async throws -> Void) async throws -> [[String: Any]] {
        let args = ["run", "--source", "/dev/video-sim0", "--duration", "\(duration)", "--json-events"] + arguments
        let env = faults.environment.merging(environment) { $1 }
        let process = Task.detached { try SimCamera.run(args, environment: env, timeoutSeconds: duration + 20) }
        try await script()
        let result = try await process.value
        #expect(result.status == 0, "\(result.errorOutput)")
        return SimCamera.events(result.output)
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

    @Test func unplugWhileStreamingRecoversAfterReplug() async throws {
        let faults = try FaultFile()
        let events = try await Self.runWhile(faults, duration: 6) {
            try await Task.sleep(for: .seconds(1.5))
            try faults.set(["/dev/video-sim0 unplug"])
            try await Task.sleep(for: .seconds(1.5))
            try faults.set([])
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

    @Test func stalledCameraIsRestartedAndReported() async throws {
        let faults = try FaultFile()
        let events = try await Self.runWhile(faults, arguments: ["--stall-timeout", "1"], duration: 6) {
            try await Task.sleep(for: .seconds(1.5))
            try faults.set(["/dev/video-sim0 stall"])
            try await Task.sleep(for: .seconds(2))
            try faults.set([])
        }
        let errorIndex = try #require(events.firstIndex { $0["kind"] as? String == "stalled" }, "\(events)")
        #expect((events[errorIndex]["message"] as? String)?.contains("restarting") == true)
        #expect(events[errorIndex...].contains { $0["event"] as? String == "started" })
        let atError = events[..<errorIndex].filter { $0["event"] as? String == "status" }.map(Self.frames).max() ?? 0
        let last = try #require(events.last { $0["event"] as? String == "status" })
        #expect(Self.frames(last) > atError + 20, "frames resumed after the stall")
    }

    @Test func corruptMJPEGIsDroppedAndCounted() async throws {
        let faults = try FaultFile(["/dev/video-sim0 corrupt-mjpeg 4"])
        let events = try await Self.runWhile(faults, environment: ["LIVEPUSH_SIM_0_FORMATS": "MJPG"], duration: 3) {}
        let started = try #require(events.first { $0["event"] as? String == "started" })
        #expect(started["pixelFormat"] as? String == "mjpeg")
        let last = try #require(events.last { $0["event"] as? String == "status" })
        let dropped = last["dropped"] as? Int ?? 0, frames = Self.frames(last)
        #expect(dropped >= 10, "about one in four frames is corrupt")
        #expect(frames >= 2 * dropped)
        #expect(!events.contains { $0["event"] as? String == "error" })
    }

    @Test func sequenceGapsAreCountedAsDrops() async throws {
        let faults = try FaultFile(["/dev/video-sim0 drop-seq 2 10"])
        let events = try await Self.runWhile(faults, duration: 2.5) {}
        let last = try #require(events.last { $0["event"] as? String == "status" })
        #expect((last["dropped"] as? Int ?? 0) >= 8, "2 lost every 10 frames")
    }

    @Test func switchingCamerasKeepsFramesFlowing() async throws {
        let faults = try FaultFile()
        let events = try await Self.runWhile(faults, arguments: ["--switch-to", "/dev/video-sim1", "--switch-after", "1.5"],
                                             environment: ["LIVEPUSH_SIM_DEVICES": "/dev/video-sim0,/dev/video-sim1",
                                                           "LIVEPUSH_SIM_1_SIZES": "640x480"], duration: 4) {}
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
