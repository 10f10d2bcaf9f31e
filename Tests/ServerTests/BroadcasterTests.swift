import Config
import Foundation
import Capture
import Engine
import MediaCore
import Server
import Testing
import TestSupport

/// Reloads restart only what changed; outputs this build lacks are refused by name.
@Suite(.serialized) struct BroadcasterTests {
    @Test func reloadRestartsOnlyChangedCameras() async throws {
        let directory = try TemporaryDirectory()
        let first = LivepushConfig(cameras: [ServerFixture.camera(id: "a", directory: directory), ServerFixture.camera(id: "b", directory: directory)])
        let broadcaster = Broadcaster(config: first)
        try await broadcaster.start()
        let aBefore = try await broadcaster.camera("a")
        var second = first
        second.cameras[1].size = VideoSize(width: 160, height: 120)
        second.cameras.append(ServerFixture.camera(id: "c", directory: directory))
        let report = await broadcaster.reload(second)
        #expect(report.unchanged == ["a"] && report.restarted == ["b"] && report.added == ["c"] && report.removed.isEmpty, "\(report)")
        let aAfter = try await broadcaster.camera("a")
        #expect(aAfter === aBefore, "unchanged camera keeps running untouched")
        let third = LivepushConfig(cameras: [second.cameras[0]])
        let removal = await broadcaster.reload(third)
        #expect(removal.removed == ["b", "c"])
        await broadcaster.stop()
    }

    /// A reload that adds an output, changes another and the bitrate leaves the camera running and
    /// never stops the output whose settings stayed the same: it keeps writing the same file.
    @Test func reloadChangesOutputsInPlace() async throws {
        let directory = try TemporaryDirectory()
        func record(_ id: String, _ file: String) -> OutputConfig {
            OutputConfig(id: id, settings: .record(path: directory.file(file), segmentSeconds: nil, retentionSeconds: nil))
        }
        var camera = ServerFixture.camera(id: "a", directory: directory)
        camera.outputs.append(record("second", "second.mp4"))
        let first = LivepushConfig(cameras: [camera])
        let broadcaster = Broadcaster(config: first)
        try await broadcaster.start()
        let runtime = try await broadcaster.camera("a")
        try await Task.sleep(for: .seconds(1))
        func output(_ id: String) async -> OutputReport? { await broadcaster.status().cameras.first?.outputs.first { $0.id == id } }
        let before = try #require(await output("record"))

        var second = first
        second.cameras[0].encoder.bitrateBitsPerSecond = 200_000
        second.cameras[0].outputs[1] = record("second", "second-b.mp4")
        second.cameras[0].outputs.append(record("third", "third.mp4"))
        let report = await broadcaster.reload(second)
        #expect(report.updated == ["a"] && report.restarted.isEmpty, "\(report)")
        #expect(report.outputs["a"] == CameraRuntime.OutputChanges(kept: ["record"], replaced: ["second"], added: ["third"]), "\(report)")
        #expect(try await broadcaster.camera("a") === runtime, "the camera kept running")
        #expect(runtime.config == second.cameras[0])
        try await Task.sleep(for: .seconds(1.5))
        let after = try #require(await output("record"))
        #expect(after.framesSent > before.framesSent && (after.uptimeSeconds ?? 0) > 2.4,
                "the unchanged output was never stopped: before \(before), after \(after)")
        #expect((await output("third"))?.framesSent ?? 0 > 0, "the added output gets frames")
        #expect(await broadcaster.status().cameras.first?.encoderBitrateBitsPerSecond == 200_000)

        let removal = await broadcaster.reload(LivepushConfig(cameras: [ServerFixture.camera(id: "a", directory: directory)]))
        #expect(removal.outputs["a"]?.removed == ["second", "third"] && removal.outputs["a"]?.kept == ["record"], "\(removal)")
        await broadcaster.stop()
        var frames: [String: Int] = [:]
        for file in ["a.mp4", "second.mp4", "second-b.mp4", "third.mp4"] {
            frames[file] = try FFmpegCLI.videoFrameCount(directory.file(file))
        }
        #expect(frames.values.allSatisfy { $0 > 0 }, "every recording was finalized and decodes: \(frames)")
        #expect(frames["a.mp4", default: 0] > frames["third.mp4", default: 0] + 8,
                "the kept output wrote one file from the start, not from the reload on: \(frames)")
    }

    /// A reload that changes only the microphone restarts the camera carrying it with the new
    /// settings (before, the camera was relaunched with the old config's audio, or not at all).
    @Test func reloadAppliesTheNewAudio() async throws {
        let directory = try TemporaryDirectory()
        let first = LivepushConfig(cameras: [ServerFixture.camera(id: "a", directory: directory), ServerFixture.camera(id: "b", directory: directory)])
        let broadcaster = Broadcaster(config: first)
        try await broadcaster.start()
        #expect(try await broadcaster.camera("a").audio == nil)
        var second = first
        second.audio = AudioConfig(device: "tone", sampleRate: 48_000, channels: 1)
        let report = await broadcaster.reload(second)
        #expect(report.restarted == ["a"] && report.unchanged == ["b"], "\(report)")
        #expect(try await broadcaster.camera("a").audio == second.audio)
        await broadcaster.stop()
    }

    /// A script that asks for the status once, well into a run, must see the real rates (the meters
    /// count from the camera's start), not zeros from a meter that only begins at the first read.
    @Test func firstStatusReadShowsRatesSinceStart() async throws {
        let directory = try TemporaryDirectory()
        let broadcaster = Broadcaster(config: LivepushConfig(cameras: [ServerFixture.camera(id: "a", directory: directory)]))
        try await broadcaster.start()
        try await Task.sleep(for: .seconds(2))
        let status = await broadcaster.status()
        await broadcaster.stop()
        let camera = try #require(status.cameras.first)
        #expect(camera.framesEncoded > 10)
        #expect(camera.encodedFps > 5 && camera.encodedFps < 20, "15 fps camera, first read: \(camera.encodedFps)")
        #expect(camera.bitrateBitsPerSecond > 0)
        #expect(camera.outputs.first.map { $0.fps > 5 } == true, "record output fps on the first read")
        #expect(status.process.cpuPercent > 0, "CPU since start on the first read")
    }

    /// An output the config accepts but that cannot be built (an RTMP URL without an application)
    /// fails the camera's start with an error that names the camera and the problem.
    @Test func unbuildableOutputFailsTheCameraByName() async throws {
        let camera = CameraConfig(id: "cam0", outputs: [OutputConfig(id: "yt", settings: .rtmp(url: "rtmp://127.0.0.1", streamKey: nil, preset: nil))])
        let broadcaster = Broadcaster(config: LivepushConfig(cameras: [camera]))
        do {
            try await broadcaster.start()
            Issue.record("an RTMP URL without an application must not start")
            await broadcaster.stop()
        } catch let error as EngineError {
            guard case let .cameraFailed(id, reason) = error else { Issue.record("unexpected \(error)"); return }
            #expect(id == "cam0")
            #expect(reason.contains("application"), "\(reason)")
        }
    }
}
