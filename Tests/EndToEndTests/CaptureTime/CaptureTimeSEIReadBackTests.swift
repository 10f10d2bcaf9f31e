import Foundation
import Harness
import Testing
import TestSupport

/// `capture_time: sei` end to end: the real `livepush stream` sends the test pattern over SRT, RTMP
/// (through nginx-rtmp) and RTP; FFmpeg receives it, ffprobe lists the SEI on every frame and FFmpeg's
/// own bitstream parser reads the capture time out of it, which must match the frame code burned into
/// the same picture (docs/capture-time.md).
@Suite(.serialized, .timeLimit(.minutes(3))) struct CaptureTimeSEIReadBackTests {
    static let seconds = 2
    static let width = LivepushStreamTests.width, height = LivepushStreamTests.height

    /// SRT's default, for H.264 and H.265 (its prefix SEI).
    @Test(arguments: ["libx264", "libx265"])
    func srtCarriesItByDefault(encoder: String) throws {
        let port = try SRTPeers.freePort()
        let dir = try TemporaryDirectory()
        let receiver = try SRTPeers.ffmpegListener(port: port, writingTo: dir.file("out.ts"))
        let livepush = try LivepushStreamTests.stream(["srt://127.0.0.1:\(port)"], seconds: Self.seconds,
                                                      extra: ["--encoder", encoder] + (encoder == "libx265" ? ["--preset", "ultrafast"] : []))
        _ = try LivepushStreamTests.finish(livepush, within: 45)
        #expect(receiver.wait(timeoutSeconds: 10) != nil, "ffmpeg did not see the end of the stream")
        try CaptureTimeReadBack.expectCaptureTimesMatchFrameCodes(dir.file("out.ts"), width: Self.width, height: Self.height,
                                                                  minimumFrames: Self.seconds * 30 / 2)
    }

    /// RTMP asks for it (`--capture-time sei`); nginx-rtmp passes it through to its recording.
    @Test func rtmpCarriesItThroughNginx() throws {
        let nginx = try NginxRTMPServer()
        let livepush = try LivepushStreamTests.stream([nginx.url(key: "capture")], seconds: Self.seconds, extra: ["--capture-time", "sei"])
        _ = try LivepushStreamTests.finish(livepush, within: 45)
        nginx.waitForRecordingsToSettle()
        let recording = try #require(nginx.recordings(key: "capture").first, "nginx recorded nothing")
        try CaptureTimeReadBack.expectCaptureTimesMatchFrameCodes(recording, width: Self.width, height: Self.height,
                                                                  minimumFrames: Self.seconds * 30 / 2)
    }

    /// RTP's default, received by ffmpeg from the SDP livepush writes.
    @Test func rtpCarriesItByDefault() throws {
        let port = try LocalPort.free()
        let dir = try TemporaryDirectory()
        let sdpPath = dir.file("stream.sdp")
        let stream = try LivepushRTPStream(port: port, arguments: ["--sdp", sdpPath], seconds: 30)
        try #require(stream.waitForSessionDescription(at: sdpPath) != nil, "no SDP: \(stream.process.errorOutput)")
        let frames = Self.seconds * 30
        try ExternalTool.run("ffmpeg", ["-hide_banner", "-nostdin", "-v", "error", "-protocol_whitelist", "file,udp,rtp",
                                        "-i", sdpPath, "-map", "0:v", "-frames:v", "\(frames)", "-c", "copy", "-y", dir.file("out.ts")],
                             timeoutSeconds: 40)
        stream.process.kill(signal: SIGTERM)
        #expect(stream.process.wait(timeoutSeconds: 10) == 0, "clean stop: \(stream.process.errorOutput)")
        try CaptureTimeReadBack.expectCaptureTimesMatchFrameCodes(dir.file("out.ts"), width: LivepushRTPStream.width,
                                                                  height: LivepushRTPStream.height, minimumFrames: frames / 2)
    }

    /// `capture_time: none` (SRT's other setting) leaves the stream without it: the check above can fail.
    @Test func noneLeavesItOut() throws {
        let port = try SRTPeers.freePort()
        let dir = try TemporaryDirectory()
        let receiver = try SRTPeers.ffmpegListener(port: port, writingTo: dir.file("out.ts"))
        let livepush = try LivepushStreamTests.stream(["srt://127.0.0.1:\(port)"], seconds: Self.seconds, extra: ["--capture-time", "none"])
        _ = try LivepushStreamTests.finish(livepush, within: 45)
        #expect(receiver.wait(timeoutSeconds: 10) != nil, "ffmpeg did not see the end of the stream")
        let frames = try CaptureTimeReadBack.probedFrames(dir.file("out.ts"))
        #expect(frames.count >= Self.seconds * 30 / 2)
        #expect(try CaptureTimeReadBack.seiTimes(dir.file("out.ts")).isEmpty)
        // x264 writes its own user data (its version) on the first frame only.
        #expect(frames.dropFirst().allSatisfy { $0.userDataMessages == 0 }, "\(frames.prefix(5))")
    }
}
