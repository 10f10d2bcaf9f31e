import Foundation
import MediaCore
import TestSupport
import Testing

/// The real `livepush` binary against the simulated V4L2 camera: discovery, controls, snapshot
/// content, negotiation notes, and camera selection.
@Suite(.serialized)
struct LivepushCameraTests {
    @Test func devicesJSONListsFormatsSizesAndRates() throws {
        let result = try SimCamera.run(["devices", "--json"], environment: ["LIVEPUSH_SIM_DEVICES": "/dev/video-sim0,/dev/video-sim1",
                                                                           "LIVEPUSH_SIM_1_CARD": "Rear Cam", "LIVEPUSH_SIM_1_FORMATS": "MJPG"])
        #expect(result.status == 0, "\(result.errorOutput)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let cameras = try #require(json["cameras"] as? [[String: Any]])
        #expect(cameras.map { $0["path"] as? String } == ["/dev/video-sim0", "/dev/video-sim1"])
        let first = try #require(cameras.first)
        #expect((first["capabilities"] as? [String: Any])?["card"] as? String == "livepush Sim Camera 0")
        let formats = try #require(first["formats"] as? [[String: Any]])
        #expect(formats.map { $0["fourcc"] as? String } == ["YUYV", "MJPG", "NV12"])
        let yuyvModes = try #require(formats[0]["modes"] as? [[String: Any]])
        let fullHD = try #require(yuyvModes.first { ($0["size"] as? [String: Int])?["width"] == 1920 })
        #expect((fullHD["intervals"] as? [[String: Int]])?.map { $0["denominator"] } == [5])
        #expect(((cameras[1]["formats"] as? [[String: Any]])?.count) == 1)
    }

    @Test func devicesTableWithoutSimulatorSaysHowToGetOne() throws {
        // Without the rpicam-vid stand-in other tests of this process put first on PATH: no camera at all here.
        let result = try ExternalTool.run(try LivepushBinary.path(), ["devices"], timeoutSeconds: 30,
                                          environment: ["PATH": "/usr/local/bin:/usr/bin:/bin"], check: false)
        #expect(result.status == 0)
        #expect(result.output.contains("sim-camera") || result.output.contains("camera:0"))
    }

    @Test func controlsSetAndReadBack() throws {
        let result = try SimCamera.run(["controls", "/dev/video-sim0", "--set", "brightness=200", "--set", "white_balance_automatic=off",
                                        "--set", "power_line_frequency=50 Hz", "--set", "auto_exposure=1", "--set", "exposure_time_absolute=400", "--json"])
        #expect(result.status == 0, "\(result.errorOutput)")
        let controls = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        func value(_ key: String) -> Int? { controls.first { $0["key"] as? String == key }?["value"] as? Int }
        #expect(value("brightness") == 200)
        #expect(value("white_balance_temperature_auto") == 0)
        #expect(value("power_line_frequency") == 1)
        #expect(value("exposure_auto") == 1)
        #expect(value("exposure_absolute") == 400)
        #expect(controls.first { $0["key"] as? String == "exposure_absolute" }?["isInactive"] as? Bool == false)
    }

    @Test func controlsRejectUnknownNamesAndOutOfRangeValues() throws {
        let unknown = try SimCamera.run(["controls", "/dev/video-sim0", "--set", "zoom_absolute=3"])
        #expect(unknown.status != 0)
        #expect(unknown.errorOutput.contains("brightness"), "the error lists the controls there are")
        let range = try SimCamera.run(["controls", "/dev/video-sim0", "--set", "brightness=999"])
        #expect(range.status != 0)
        #expect(range.errorOutput.contains("0…255"))
    }

    @Test func sourceControlsAreAppliedAtOpen() throws {
        let state = try TemporaryDirectory()
        let environment = ["LIVEPUSH_SIM_STATE_DIR": state.path]
        let snapshot = try SimCamera.run(["snapshot", "--source", "/dev/video-sim0", "--control", "brightness=77",
                                          "--control", "focus_auto=0", "-o", state.file("x.png")], environment: environment)
        #expect(snapshot.status == 0, "\(snapshot.errorOutput)")
        // the simulator keeps control values in the state directory across processes
        let listing = try SimCamera.run(["controls", "/dev/video-sim0"], environment: environment)
        #expect(listing.output.contains("brightness (integer): 0…255 default=128 value=77"), "\(listing.output)")
        #expect(listing.output.contains("focus_auto (boolean): 0 or 1 default=1 value=0"))
    }

    @Test func stableNamesAreFollowed() throws {
        let directory = try TemporaryDirectory()
        let link = directory.file("usb-Sim_Camera-video-index0")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/video-sim0")
        let result = try SimCamera.run(["controls", link])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("brightness"))
    }

    @Test(arguments: ["/dev/video-sim0", "camera:1", "camera:rear cam"])
    func snapshotCarriesTheFrameCode(source: String) throws {
        let directory = try TemporaryDirectory()
        let image = directory.file("x.png"), raw = directory.file("x.yuv")
        let result = try SimCamera.run(["snapshot", "--source", source, "-o", image],
                                       environment: ["LIVEPUSH_SIM_DEVICES": "/dev/video-sim0,/dev/video-sim1", "LIVEPUSH_SIM_1_CARD": "Rear Cam"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("1280x720"))
        try FFmpegCLI.ffmpeg(["-i", image, "-pix_fmt", "yuv420p", "-f", "rawvideo", raw])
        let bytes = try FFmpegCLI.bytes(of: raw)
        #expect(bytes.count == 1280 * 720 * 3 / 2)
        let code = bytes.withUnsafeBufferPointer { pointer in
            pointer.baseAddress.flatMap { FrameCode.read(luma: $0, stride: 1280, width: 1280, height: 720) }
        }
        let found = try #require(code, "no frame code in the snapshot")
        #expect(found.captureTimeNanos > 0)
        #expect(found.frameNumber < 100, "the snapshot is one of the first frames")
    }

    @Test func negotiationFallsBackAndNotesTheRate() throws {
        let result = try SimCamera.run(["run", "--source", "/dev/video-sim0", "--size", "1600x900", "--fps", "24", "--duration", "1", "--json-events"])
        #expect(result.status == 0, "\(result.errorOutput)")
        let started = try #require(SimCamera.events(result.output).first { $0["event"] as? String == "started" })
        #expect(started["width"] as? Int == 1920)
        #expect(started["pixelFormat"] as? String == "mjpeg", "raw 1080p is only offered at 5 fps")
        let notes = started["notes"] as? [String] ?? []
        #expect(notes.contains { $0.contains("1600x900 not offered") }, "\(notes)")
        #expect(notes.contains { $0.contains("24 fps not offered") && $0.contains("using 30") }, "\(notes)")
    }

    @Test func rawFormatPreferredWhenTheRateAllows() throws {
        let result = try SimCamera.run(["run", "--source", "/dev/video-sim0", "--size", "1920x1080", "--fps", "5", "--duration", "1.5", "--json-events"])
        let events = SimCamera.events(result.output)
        let started = try #require(events.first { $0["event"] as? String == "started" })
        #expect(started["pixelFormat"] as? String == "yuyv")
        #expect((started["notes"] as? [String])?.isEmpty == true)
        let status = try #require(events.last { $0["event"] as? String == "status" })
        #expect((status["frames"] as? Int ?? 0) >= 4)
        #expect(status["codeMismatches"] as? Int == 0)
        #expect((status["codesRead"] as? Int ?? 0) > 0, "the simulator's frame code survives YUYV→I420")
    }
}
