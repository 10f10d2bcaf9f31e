import Foundation
import Testing
import TestSupport

/// The systemd watchdog per camera (Engine/CameraProgressWatch.swift) on the real `livepush serve`
/// under a NOTIFY_SOCKET the test listens on: two cameras, one on libx264 and one on the simulated
/// M2M encoder (scripts/v4l2sim). While the simulator's fault wedges that encoder, the pings stop
/// and the log names that camera alone; the camera's own watchdog reopens the encoder; once the
/// fault is gone it encodes again from an IDR, both recordings stayed up throughout, and the pings resume.
@Suite(.serialized) struct CameraWatchdogProcessTests {
    static let encoder = "/dev/video-sim-enc0"

    @Test func oneWedgedCameraStopsThePingsUntilItsEncoderRecovers() throws {
        let simulator = try V4L2Simulator(encoders: [Self.encoder])
        let listener = try NotifySocketListener(path: simulator.directory.file("notify.sock"))
        var environment = simulator.environment
        environment["NOTIFY_SOCKET"] = listener.path
        environment["WATCHDOG_USEC"] = "2000000"  // a check each second
        let soft = simulator.directory.file("soft.mp4"), hard = simulator.directory.file("hard.mp4")
        let serve = try ServeUnderTest(yaml: ServeYAML.config([
            ServeYAML.camera("soft", encoder: "{name: libx264, bitrate: 1M}", outputs: ["record: {path: \(soft)}"]),
            ServeYAML.camera("hard", encoder: "{name: h264_v4l2m2m, bitrate: 1M, keyint: 60}", outputs: ["record: {path: \(hard)}"]),
        ]), environment: environment)
        let healthy = listener.messages(until: "WATCHDOG=1", seconds: 20)
        #expect(healthy.contains("WATCHDOG=1"), "pings while both cameras encode: \(healthy)")
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { simulator.lines(" frame ").count > 30 })
        let opens = simulator.lines(" open").count

        try simulator.setFaults(["\(Self.encoder) wedge"])
        #expect(serve.process.waitUntil(timeoutSeconds: 15) { serve.process.errorOutput.contains("not petting the watchdog") },
                "\(serve.process.errorOutput.suffix(1500))")
        let warnings = serve.process.errorOutput.split(separator: "\n").filter { $0.contains("not petting the watchdog") }
        #expect(warnings.allSatisfy { $0.contains("cameras=hard") || $0.contains("cameras\":\"hard") }, "only the wedged camera is named: \(warnings)")
        _ = listener.messages(until: "(drain what was sent before the wedge)", seconds: 0.5)
        #expect(serve.process.waitUntil(timeoutSeconds: 15) { simulator.lines(" open").count > opens },
                "the camera's watchdog reopened the wedged encoder")
        let whileWedged = listener.messages(until: "WATCHDOG=1", seconds: 2.5)
        #expect(!whileWedged.contains("WATCHDOG=1"), "no ping while one camera of two is wedged: \(whileWedged)")
        let softEncoded = try serve.cameraStatus("soft")?["framesEncoded"] as? Int ?? 0

        let framesWhileWedged = simulator.lines(" frame ").count
        try simulator.setFaults([])
        let recovered = listener.messages(until: "WATCHDOG=1", seconds: 15)
        #expect(recovered.contains("WATCHDOG=1"), "pings resume once the encoder answers: \(recovered)")
        #expect(serve.process.waitUntil(timeoutSeconds: 15) { simulator.lines(" frame ").count > framesWhileWedged + 30 })
        #expect(simulator.lines(" frame ").dropFirst(framesWhileWedged).first?.contains(" idr=1 ") == true,
                "the reopened encoder starts with an IDR")
        let hardStatus = try #require(try serve.cameraStatus("hard"))
        let softStatus = try #require(try serve.cameraStatus("soft"))
        #expect((hardStatus["encoderRestarts"] as? Int ?? 0) >= 1 && softStatus["encoderRestarts"] as? Int == 0)
        #expect((softStatus["framesEncoded"] as? Int ?? 0) > softEncoded, "the other camera kept encoding")
        for camera in [hardStatus, softStatus] {
            let output = try #require((camera["outputs"] as? [[String: Any]])?.first)
            #expect(output["state"] as? String == "running" && output["reconnects"] as? Int == 0, "the recording stayed up: \(output)")
        }
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
        let recorded = try FFmpegCLI.videoFrameCount(hard)
        #expect(recorded > 60, "one recording across the wedge, decodable: \(recorded) frames")
    }
}
