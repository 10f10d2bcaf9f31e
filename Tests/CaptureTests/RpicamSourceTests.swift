import Capture
import Foundation
import MediaCore
import Testing
import TestSupport

/// `rpicam:N` against the stand-in rpicam-vid (TestSupport/StandIns): frames with frame codes in
/// order with and without stride padding, the exact command line, listing, and recovery from a
/// crash, a hang and a short frame through the no-signal card.
@Suite(.serialized) struct RpicamSourceTests {
    static let frameCount = 30

    static func camera(width: Int, height: Int) throws -> RpicamStandIn {
        try RpicamStandIn(width: width, height: height, frameCount: frameCount)
    }

    static func capturer(_ camera: RpicamStandIn, width: Int, height: Int, controls: [String: String] = [:],
                         stallSeconds: Double = 5) throws -> CameraCapturer {
        let config = CaptureConfig(size: VideoSize(width: width, height: height), framesPerSecond: 30)
        return CameraCapturer(source: SourceFactory.make(.rpicam(index: camera.index), stallTimeoutSeconds: stallSeconds, controls: controls),
                              config: config)
    }

    /// Every code read back, each the previous one plus one (the stand-in loops its frames).
    static func expectCodesInOrder(_ records: [CollectingSink.Record], from first: Int = 0) {
        let codes = records.dropFirst(first).map(\.code)
        #expect(!codes.isEmpty)
        #expect(RpicamStandIn.outOfOrder(codes, frameCount: frameCount, restarts: 0).isEmpty, "codes: \(codes.map { $0?.frameNumber })")
    }

    /// Waits (bounded) for `condition`.
    static func wait(seconds: Double, _ condition: () -> Bool) async throws -> Bool {
        let deadline = MonotonicClock.nowNanos() + Int64(seconds * 1e9)
        while MonotonicClock.nowNanos() < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    @Test(arguments: [(160, 120), (192, 144), (1000, 200)])
    func streamsTheStandInsFramesInOrder(width: Int, height: Int) async throws {
        let camera = try Self.camera(width: width, height: height)
        let capturer = try Self.capturer(camera, width: width, height: height)
        let sink = CollectingSink()
        let format = try await capturer.start(sink: sink)
        try await sink.waitFor(count: 40)
        await capturer.stop()
        #expect(format.size == VideoSize(width: width, height: height))
        let records = sink.all
        #expect(records.count >= 40)
        #expect(records.allSatisfy { $0.width == width && $0.height == height })
        Self.expectCodesInOrder(records)
        let times = records.map(\.captureTimeNanos)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "capture times must increase")
        #expect(camera.invocations.count == 1)
        #expect(try await Self.wait(seconds: 5) { camera.runningProcesses.isEmpty }, "rpicam-vid outlived stop")
    }

    @Test func passesExactlyLivepushsCommandLineWithEveryControl() async throws {
        let camera = try Self.camera(width: 160, height: 120)
        let controls = ["brightness": "-25", "contrast": "150", "saturation": "0", "sharpness": "1600", "exposure": "sport",
                        "awb": "daylight", "autofocus-mode": "manual", "lens_position": "250", "hdr": "sensor"]
        let capturer = try Self.capturer(camera, width: 160, height: 120, controls: controls)
        let sink = CollectingSink()
        _ = try await capturer.start(sink: sink)
        try await sink.waitFor(count: 5)
        await capturer.stop()
        Self.expectCodesInOrder(sink.all)
        let arguments = try #require(camera.invocations.first)
        #expect(arguments == ["-t", "0", "--codec", "yuv420", "-o", "-", "--nopreview", "--camera", String(camera.index),
                              "--width", "160", "--height", "120", "--framerate", "30",
                              "--brightness", "-0.25", "--contrast", "1.50", "--saturation", "0.00", "--sharpness", "16.00",
                              "--exposure", "sport", "--awb", "daylight", "--autofocus-mode", "manual", "--lens-position", "2.50",
                              "--hdr", "sensor"])
    }

    /// Each control alone, as the option rpicam-vid takes; menus by name or index.
    @Test(arguments: [
        ("brightness", "100", ["--brightness", "1.00"]), ("brightness", "-100", ["--brightness", "-1.00"]),
        ("contrast", "100", ["--contrast", "1.00"]), ("saturation", "5", ["--saturation", "0.05"]),
        ("sharpness", "0", ["--sharpness", "0.00"]), ("exposure", "long", ["--exposure", "long"]),
        ("exposure", "1", ["--exposure", "sport"]), ("awb", "tungsten", ["--awb", "tungsten"]),
        ("autofocus_mode", "continuous", ["--autofocus-mode", "continuous"]), ("lens-position", "0", ["--lens-position", "0.00"]),
        ("hdr", "off", ["--hdr", "off"]), ("HDR", "Auto", ["--hdr", "auto"]),
    ])
    func mapsEachControlToItsOption(key: String, value: String, expected: [String]) throws {
        #expect(try RpicamControls.arguments(for: [key: value]) == expected)
    }

    @Test(arguments: [("brightness", "101"), ("contrast", "-1"), ("exposure", "custom"), ("awb", "9"), ("focus", "1"), ("lens_position", "x")])
    func refusesControlsRpicamWouldNot(key: String, value: String) {
        #expect(throws: CaptureError.self) { try RpicamControls.arguments(for: [key: value]) }
    }

    @Test func listsControlsWithCurrentValues() {
        let controls = RpicamControls.list(current: ["brightness": "20", "awb": "cloudy"])
        #expect(controls.map(\.key) == ["brightness", "contrast", "saturation", "sharpness", "exposure", "awb", "autofocus_mode", "lens_position", "hdr"])
        #expect(controls.first { $0.key == "brightness" }?.value == 20)
        #expect(controls.first { $0.key == "awb" }?.value == 6)
        #expect(controls.first { $0.key == "awb" }?.menu.map(\.name).last == "cloudy")
        #expect(controls.first { $0.key == "contrast" }?.value == 100)
    }

    /// 180° and the mirror go to rpicam-vid as flips; 90°/270° stay on the frames for libyuv.
    @Test(arguments: [
        (VideoRotation.none, false, [String](), VideoRotation.none), (.none, true, ["--hflip"], .none),
        (.clockwise180, false, ["--rotation", "180"], .none), (.clockwise180, true, ["--vflip"], .none),
        (.clockwise90, false, [], .clockwise90), (.clockwise270, true, ["--hflip"], .clockwise270),
    ])
    func rotationAndMirror(rotation: VideoRotation, mirror: Bool, flags: [String], frameRotation: VideoRotation) throws {
        let config = CaptureConfig(size: VideoSize(width: 640, height: 480), framesPerSecond: 25, rotation: rotation, mirror: mirror)
        let command = RpicamCommand(cameraIndex: 1, config: config)
        #expect(try command.arguments() == ["-t", "0", "--codec", "yuv420", "-o", "-", "--nopreview", "--camera", "1",
                                           "--width", "640", "--height", "480", "--framerate", "25"] + flags)
        #expect(command.frameRotation == frameRotation)
    }

    /// The stand-in accepts the flips, and the capturer does not mirror a second time.
    @Test func flipsReachTheStandIn() async throws {
        let camera = try Self.camera(width: 192, height: 144)
        let config = CaptureConfig(size: VideoSize(width: 192, height: 144), framesPerSecond: 30, rotation: .clockwise180, mirror: true)
        let capturer = CameraCapturer(source: RpicamSource(cameraIndex: camera.index), config: config)
        let sink = CollectingSink()
        _ = try await capturer.start(sink: sink)
        try await sink.waitFor(count: 5)
        await capturer.stop()
        #expect(camera.invocations.first?.suffix(1) == ["--vflip"])
        Self.expectCodesInOrder(sink.all) // mirrored again by livepush, the codes would not read
    }

    @Test func listsTheCSICamerasRpicamReports() throws {
        try RpicamStandIn.install()
        let cameras = try RpicamDiscovery.cameras()
        #expect(cameras.map(\.index) == [0, 1])
        #expect(cameras.map(\.model) == ["imx708", "ov5647"])
        #expect(cameras.first?.sensor == "4608x2592 10-bit RGGB")
        #expect(cameras.first?.id == "/base/soc/i2c0mux/i2c@1/imx708@1a")
        #expect(cameras.first?.modes.map(\.size) == [VideoSize(width: 1536, height: 864), VideoSize(width: 2304, height: 1296),
                                                     VideoSize(width: 4608, height: 2592)])
        #expect(cameras.first?.modes.first?.maximumFramesPerSecond == 120.13)
        #expect(cameras.first?.modes.first?.crop == "(768, 432)/3072x1728")
        #expect(cameras.last?.modes.map(\.pixelFormat) == ["SGBRG10_CSI2P", "SGBRG10_CSI2P", "SGBRG8"])
    }

    @Test func parsesNoCamerasAndSkipsLogLines() {
        #expect(RpicamCameraInfo.parse(listing: "No cameras available!\n").isEmpty)
        let text = "[0:01:02.3] [77] INFO Camera camera_manager.cpp:327 libcamera v0.3\nAvailable cameras\n-----------------\n"
            + "0 : imx477 [4056x3040 12-bit RGGB] (/base/axi/pcie@120000/rp1/i2c@88000/imx477@1a)\n"
            + "    Modes: 'SRGGB10_CSI2P' : 1332x990 [nan fps - (696, 528)/2664x1980 crop]\n\n"
        let cameras = RpicamCameraInfo.parse(listing: text)
        #expect(cameras.count == 1)
        #expect(cameras.first?.modes.count == 1)
        #expect(cameras.first?.modes.first?.maximumFramesPerSecond == nil)
    }

    /// A fault shows the no-signal card, then rpicam-vid is started again and frames resume in order.
    @Test(arguments: [RpicamStandIn.Fault.crash, .hang, .short])
    func recoversFrom(_ fault: RpicamStandIn.Fault) async throws {
        let camera = try Self.camera(width: 160, height: 120)
        let capturer = try Self.capturer(camera, width: 160, height: 120, stallSeconds: 1)
        let sink = CollectingSink()
        _ = try await capturer.start(sink: sink)
        try await sink.waitFor(count: 10)
        try camera.inject(fault)
        #expect(try await Self.wait(seconds: 10) { capturer.isShowingPlaceholder }, "no card after \(fault)")
        #expect(try await Self.wait(seconds: 15) { !capturer.isShowingPlaceholder && camera.invocations.count == 2 }, "not restarted after \(fault)")
        let resumedAt = sink.all.count
        try await sink.waitFor(count: resumedAt + 10)
        await capturer.stop()
        Self.expectCodesInOrder(sink.all, from: resumedAt)
        #expect(try await Self.wait(seconds: 5) { camera.runningProcesses.isEmpty }, "rpicam-vid outlived stop")
    }

    /// Until rpicam-vid's first frame the outputs get the no-signal card, not nothing.
    @Test func showsTheCardWhileRpicamVidStarts() async throws {
        let camera = try Self.camera(width: 160, height: 120)
        try camera.delayStart(seconds: 2)
        let capturer = try Self.capturer(camera, width: 160, height: 120)
        let sink = CollectingSink()
        _ = try await capturer.start(sink: sink)
        #expect(try await Self.wait(seconds: 10) { sink.all.contains { $0.code != nil } }, "no camera frame after the delay")
        try await sink.waitFor(count: sink.all.count + 5)
        await capturer.stop()
        let records = sink.all
        let cards = records.prefix { $0.code == nil }
        #expect(cards.count >= 10, "expected about 1.5 s of cards at 30 fps, got \(cards.count)")
        #expect(cards.allSatisfy { $0.width == 160 && $0.height == 120 })
        Self.expectCodesInOrder(records)
    }

    /// The error names how the child ended and quotes its last stderr line (the rest is logged at debug).
    @Test func aCrashIsRecoverableAndQuotesTheChildsStderr() throws {
        let camera = try Self.camera(width: 160, height: 120)
        let source = RpicamSource(cameraIndex: camera.index)
        _ = try source.open(config: CaptureConfig(size: VideoSize(width: 160, height: 120), framesPerSecond: 30))
        defer { source.close() }
        let pool = FrameBufferPool(capacity: 4)
        try camera.inject(.crash)
        // Bounded in time, not in reads: a read returns at once with a card or a partial frame, and
        // on a loaded machine the stand-in takes longer than any fixed number of them to crash.
        var failure: CaptureError?
        let deadline = MonotonicClock.nowNanos() + 10_000_000_000
        while failure == nil, MonotonicClock.nowNanos() < deadline {
            do { _ = try source.read(pool: pool) } catch { failure = error }
        }
        let error = try #require(failure)
        #expect(source.isRecoverable(error))
        #expect(error.description.contains("exited, exit code 1; its last message: ERROR: *** simulated crash ***"), "\(error)")
        #expect(camera.runningProcesses.isEmpty)
    }

    @Test func smoothsReadJitterToTheFrameInterval() {
        var smoother = FrameTimeSmoother(framesPerSecond: 25)
        let interval: Int64 = 40_000_000
        let jitter: [Int64] = [0, 9, -7, 12, -11, 3, 8, -12, 0, 5, -6, 11] // milliseconds off the 25 fps grid
        let stamps = jitter.enumerated().map { smoother.timestamp(readAtNanos: 1_000_000_000 + Int64($0.offset) * interval + $0.element * 1_000_000) }
        for (previous, next) in zip(stamps, stamps.dropFirst()) {
            #expect(abs((next - previous) - interval) <= 3_000_000, "step \(next - previous) ns strays from the 40 ms interval")
        }
        // A gap of several frames (a restart) re-anchors on the read time.
        let resumed = smoother.timestamp(readAtNanos: stamps[stamps.count - 1] + 10 * interval)
        #expect(resumed == stamps[stamps.count - 1] + 10 * interval)
    }
}
