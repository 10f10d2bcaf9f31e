import Foundation
import MediaCore
import Testing
import TestSupport

/// The `livepush` program with a CSI camera (`rpicam:N`), against the stand-in rpicam-vid:
/// `devices` lists it, `stream` encodes its frames into a recording complete and in order, and
/// the child never outlives livepush, even when livepush is killed.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RpicamLivepushTests {
    static let frameCount = 30

    @Test func devicesListsTheCSICameras() throws {
        try RpicamStandIn.install()
        let table = try ExternalTool.run(try LivepushBinary.path(), ["devices"], timeoutSeconds: 30, environment: try RpicamStandIn.environment())
        #expect(table.output.contains("rpicam:0  imx708  [4608x2592 10-bit RGGB]  (/base/soc/i2c0mux/i2c@1/imx708@1a)"), "\(table.output)")
        #expect(table.output.contains("SRGGB10_CSI2P  2304x1296"), "\(table.output)")
        #expect(table.output.contains("rpicam:1  ov5647"), "\(table.output)")
        let json = try ExternalTool.run(try LivepushBinary.path(), ["devices", "--json"], timeoutSeconds: 30, environment: try RpicamStandIn.environment())
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let csi = try #require(listing["csiCameras"] as? [[String: Any]])
        #expect(csi.map { $0["model"] as? String } == ["imx708", "ov5647"])
    }

    /// 400 pixels wide: rpicam-vid pads its rows to 448 bytes.
    @Test func streamRecordsEveryFrameInOrder() throws {
        let camera = try RpicamStandIn(width: 400, height: 240, frameCount: Self.frameCount)
        let directory = try TemporaryDirectory()
        let recording = directory.file("out.mp4")
        try ExternalTool.run(try LivepushBinary.path(),
                             ["stream", "--source", "rpicam:\(camera.index)", "--size", "400x240", "--fps", "30", "--keyint", "1",
                              "--bitrate", "1M", "--preset", "ultrafast", "--duration", "4s", "--record", recording],
                             timeoutSeconds: 60, environment: try RpicamStandIn.environment())
        let codes = try RecordedFrameCodes.read(recording, width: 400, height: 240)
        #expect(codes.count >= 60, "only \(codes.count) frames in 4 s at 30 fps")
        #expect(RpicamStandIn.outOfOrder(codes, frameCount: Self.frameCount, restarts: 0).isEmpty,
                "codes: \(codes.map { $0?.frameNumber })")
        #expect(camera.invocations.count == 1)
        #expect(camera.runningProcesses.isEmpty, "rpicam-vid outlived livepush")
    }

    /// PR_SET_PDEATHSIG: a SIGKILLed livepush cannot stop its child, the kernel does.
    @Test func theChildDiesWithLivepush() throws {
        let camera = try RpicamStandIn(width: 192, height: 144, frameCount: Self.frameCount)
        let directory = try TemporaryDirectory()
        let livepush = try BackgroundProcess(try LivepushBinary.path(),
                                             ["stream", "--source", "rpicam:\(camera.index)", "--size", "192x144", "--fps", "30",
                                              "--preset", "ultrafast", "--duration", "60s", "--record", directory.file("out.mp4")],
                                             environment: try RpicamStandIn.environment())
        #expect(livepush.waitUntil(timeoutSeconds: 20) { camera.runningProcesses.count == 1 }, "stand-in never started: \(livepush.errorOutput)")
        livepush.kill(signal: SIGKILL)
        #expect(livepush.wait(timeoutSeconds: 10) != nil)
        #expect(livepush.waitUntil(timeoutSeconds: 5) { camera.runningProcesses.isEmpty }, "rpicam-vid outlived a killed livepush")
    }
}
