import Foundation
import Testing
import TestSupport

/// `encoder: auto` and h264_v4l2m2m on the real `livepush` binary, against the simulated
/// bcm2835-codec M2M encoder of scripts/v4l2sim (LD_PRELOAD; its event log counts opens, STREAMONs,
/// control writes and what each encoded frame carried). There is no Pi here: this is the driver's
/// interface as the simulator models it, encoding with libx264 inside.
@Suite(.serialized) struct HardwareEncoderProcessTests {
    static let node = "/dev/video-sim-enc0"

    @Test func autoPicksTheM2MEncoderWhenOneEncodesElseLibx264() throws {
        let simulator = try V4L2Simulator(encoders: [Self.node])
        let with = try ExternalTool.run(try LivepushBinary.path(), ["encoders"], timeoutSeconds: 60,
                                        environment: simulator.environment, check: false)
        #expect(with.status == 0, "\(with.errorOutput)")
        #expect(with.output.contains("auto picks h264_v4l2m2m: \(Self.node) encoded a test frame"), "\(with.output)")
        let without = try ExternalTool.run(try LivepushBinary.path(), ["encoders"], timeoutSeconds: 60, check: false)
        #expect(without.status == 0)
        #expect(without.output.contains("auto picks libx264: no V4L2 M2M H.264 encoder found"), "\(without.output)")
    }

    /// The encoder writes SPS/PPS once (the bcm2835-codec quirk); every IDR in livepush's recording
    /// carries them, read back packet by packet with FFmpeg's trace_headers.
    @Test func everyIDRCarriesSPSAndPPS() throws {
        let simulator = try V4L2Simulator(encoders: [Self.node])
        let recording = simulator.directory.file("rec.mp4")
        let result = try ExternalTool.run(try LivepushBinary.path(), [
            "stream", "--source", "testpattern", "--size", "640x480", "--fps", "30", "--keyint", "0.5",
            "--duration", "4s", "--record", recording,
        ], timeoutSeconds: 60, environment: simulator.environment, check: false)
        #expect(result.status == 0, "\(result.errorOutput.suffix(1500))")
        #expect(result.output.contains("encoder auto → h264_v4l2m2m: \(Self.node) encoded a test frame"), "\(result.output.prefix(500))")
        let idrs = simulator.lines(" idr=1 ")
        #expect(idrs.count >= 6, "keyint 0.5 s over 4 s reaches the encoder's I-period control: \(idrs)")
        #expect(idrs.filter { $0.contains(" sps=0 ") }.count >= 3, "the encoder left SPS/PPS out of later IDRs: \(idrs)")
        let packets = try Self.nalUnitTypesPerPacket(recording)
        let idrPackets = packets.filter { $0.contains(5) }
        #expect(idrPackets.count >= 6, "\(packets.prefix(5))")
        for (index, types) in idrPackets.enumerated() {
            #expect(types.contains(7) && types.contains(8), "IDR packet \(index) has NAL units \(types)")
        }
        #expect(try FFmpegCLI.videoFrameCount(recording) > 60)
    }

    /// A keyframe request and a bitrate change reach the running encoder's controls: no new open,
    /// no new STREAMON, and the IDR follows the request.
    @Test func keyFrameRequestAndBitrateChangeGoThroughControls() throws {
        let simulator = try V4L2Simulator(encoders: [Self.node])
        let serve = try ServeUnderTest(yaml: ServeYAML.config([ServeYAML.camera("cam0", encoder: "{name: auto, bitrate: 1M, keyint: 60}")]),
                                       environment: simulator.environment)
        let api = "\(serve.baseURL)/api/cameras/cam0"
        let camera = try #require(serve.waitForCamera("cam0"), "cam0 never reached /api/status: \(serve.process.errorOutput.suffix(1000))")
        #expect(camera["encoder"] as? String == "h264_v4l2m2m", "\(camera)")
        #expect(camera["encoderChoice"] as? String == "h264_v4l2m2m: \(Self.node) encoded a test frame")
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { simulator.lines(" frame ").count > 10 })
        let opens = simulator.lines(" open").count, streamons = simulator.lines(" streamon ").count
        let idrsBefore = simulator.lines(" idr=1 ").count

        #expect(try Curl.status(["-X", "POST", "\(api)/keyframe"]) == "200")
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { simulator.lines(" idr=1 ").count > idrsBefore },
                "an IDR within a keyint of 60 s means the request got through")
        #expect(simulator.lines("ctrl force-key-frame").count == 1)

        #expect(try Curl.status(["-X", "POST", "-H", "Content-Type: application/json", "--data", "{\"bitrate\":\"700k\"}",
                                 "\(api)/bitrate"]) == "200")
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { !simulator.lines("ctrl bitrate=700000").isEmpty })
        let framesAfterChange = simulator.lines(" frame ").count
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { simulator.lines(" frame ").count > framesAfterChange + 10 })
        #expect(simulator.lines(" open").count == opens, "no reopen: \(simulator.lines(" open"))")
        #expect(simulator.lines(" streamon ").count == streamons)
        #expect(simulator.lines(" idr=1 ").count == idrsBefore + 1, "the bitrate change forced no IDR")
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
    }

    /// A wedged encoder (the simulator's fault: OUTPUT buffers come back, CAPTURE buffers stop) is
    /// reopened by the camera's watchdog after 3 s without an encoded frame, with an IDR once it
    /// encodes again; the recording output stays up through it and is decodable across the gap.
    @Test func aWedgedEncoderIsReopenedAndRecovers() throws {
        let simulator = try V4L2Simulator(encoders: [Self.node])
        let recording = simulator.directory.file("rec.mp4")
        let serve = try ServeUnderTest(yaml: ServeYAML.config([ServeYAML.camera("cam0", encoder: "{name: auto, bitrate: 1M, keyint: 60}",
                                                                                     outputs: ["record: {path: \(recording)}"])]),
                                       environment: simulator.environment)
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { simulator.lines(" frame ").count > 30 })
        let opens = simulator.lines(" open").count
        try simulator.setFaults(["\(Self.node) wedge"])
        #expect(serve.process.waitUntil(timeoutSeconds: 15) { simulator.lines(" open").count > opens },
                "the watchdog reopened the encoder while it was wedged")
        let framesWhileWedged = simulator.lines(" frame ").count
        try simulator.setFaults([])
        #expect(serve.process.waitUntil(timeoutSeconds: 15) { simulator.lines(" frame ").count > framesWhileWedged + 30 },
                "frames come out again once the fault is gone")
        let afterRecovery = simulator.lines(" frame ").dropFirst(framesWhileWedged)
        #expect(afterRecovery.first?.contains(" idr=1 ") == true, "the first frame after recovery is an IDR: \(afterRecovery.prefix(2))")
        let camera = try #require(serve.waitForCamera("cam0"), "cam0 never reached /api/status: \(serve.process.errorOutput.suffix(1000))")
        #expect((camera["encoderRestarts"] as? Int ?? 0) >= 1, "\(camera)")
        #expect(camera["state"] as? String == "running")
        #expect(serve.process.errorOutput.contains("encoder wedged"), "the reopen is logged")
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1000))")
        // one recording across the gap: decodable, frames from before and after the wedge
        #expect(try FFmpegCLI.videoFrameCount(recording) > 60)
    }

    /// Stopping while the encoder is wedged (just after the watchdog reopened it, still wedged) ends
    /// promptly: the end-of-stream drain, which would wait forever for the driver, is skipped.
    @Test func stoppingWhileWedgedEnds() throws {
        let simulator = try V4L2Simulator(encoders: [Self.node])
        let serve = try ServeUnderTest(yaml: ServeYAML.config([ServeYAML.camera("cam0", encoder: "{name: auto, bitrate: 1M}")]),
                                       environment: simulator.environment)
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { simulator.lines(" frame ").count > 10 })
        let opens = simulator.lines(" open").count
        try simulator.setFaults(["\(Self.node) wedge"])
        #expect(serve.process.waitUntil(timeoutSeconds: 15) { simulator.lines(" open").count > opens })
        #expect(serve.stop() == 0, "ended by SIGTERM within 15 s: \(serve.process.errorOutput.suffix(1000))")
    }

    /// NAL unit types of each video packet of a file, from `-bsf:v trace_headers`.
    static func nalUnitTypesPerPacket(_ path: String) throws -> [[Int]] {
        let trace = try ExternalTool.run("ffmpeg", ["-hide_banner", "-nostdin", "-i", path, "-map", "0:v", "-c", "copy",
                                                    "-bsf:v", "trace_headers", "-f", "null", "-"], timeoutSeconds: 60)
        var packets: [[Int]] = []
        for line in trace.errorOutput.split(separator: "\n") {
            if line.contains("Packet:") { packets.append([]); continue }
            guard let range = line.range(of: "nal_unit_type"), !packets.isEmpty else { continue }
            let digits = line[range.upperBound...].split(separator: "=").last?.trimmingCharacters(in: .whitespaces) ?? ""
            if let type = Int(digits) { packets[packets.count - 1].append(type) }
        }
        return packets
    }
}
