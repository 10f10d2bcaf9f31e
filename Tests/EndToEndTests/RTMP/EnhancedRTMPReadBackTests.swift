import Foundation
import Testing
import TestSupport

/// HEVC and AV1 over enhanced RTMP (`hvc1`/`av01` FourCC video), read back by a receiver that is not
/// livepush: FFmpeg 8, as PyAV bundles it, serves RTMP, demuxes the enhanced FLV tags and decodes every
/// frame the real `livepush stream` sent. (nginx-rtmp drops enhanced-RTMP video, and Debian's ffmpeg 5.1
/// cannot demux it, so neither can check this.)
@Suite(.serialized, .timeLimit(.minutes(3))) struct EnhancedRTMPReadBackTests {
    static let seconds = 6

    /// `codeShare`: the part of the decoded pictures whose frame code must read. SVT-AV1, in its low-delay
    /// mode at a real-time preset, now and then keeps one block of the previous picture in the code band
    /// (a stale bit, caught by the code's CRC: flipping that one bit gives the right code): the encoder's
    /// choice, which the decoder reproduces without error, so a few codes per hundred frames do not read.
    @Test(arguments: [("libx265", "hevc", 1.0), ("libsvtav1", "libdav1d", 0.9)])
    func everyFrameDecodesInFFmpeg8(encoder: String, decoder: String, codeShare: Double) throws {
        let port = try LocalPort.free()
        let url = "rtmp://127.0.0.1:\(port)/app/key"
        let receiver = try BackgroundProcess("timeout", ["-k", "5", "90", try PythonPeers.python(),
                                                         "\(PythonPeers.scripts)/pyav_rtmp_server.py", url, "--wait", "40"])
        // FFmpeg's RTMP server takes one connection: look for its listening socket, never connect to it.
        try #require(LocalPort.waitUntilListeningSocket(port, timeoutSeconds: 30), "PyAV never listened: \(receiver.errorOutput)")
        let livepush = try LivepushStreamTests.stream([url], seconds: Self.seconds, extra: ["--encoder", encoder])
        let log = try LivepushStreamTests.finish(livepush, within: 60)
        #expect(receiver.wait(timeoutSeconds: 30) == 0, "receiver: \(receiver.errorOutput.suffix(2000))")
        let result = try #require(PythonPeers.result(receiver.output), "the receiver printed no JSON: \(receiver.errorOutput.suffix(2000))")
        let sent = try #require(Self.framesSent(log), "no summary in \(log.suffix(800))")
        let frames = result["frames"] as? Int ?? -1
        #expect(result["error"] is NSNull, "\(result)")
        #expect(result["codec"] as? String == decoder, "\(result)")
        #expect(result["width"] as? Int == LivepushStreamTests.width && result["height"] as? Int == LivepushStreamTests.height, "\(result)")
        #expect(sent > 0 && frames == sent, "livepush sent \(sent) frames, FFmpeg decoded \(frames): \(result)")
        #expect(result["packets"] as? Int == sent, "\(result)")
        #expect(result["keyPackets"] as? Int ?? 0 >= 1, "\(result)")
        #expect(result["decodeErrors"] as? Int == 0 && result["corruptFrames"] as? Int == 0, "\(result)")
        // The decoded pictures carry their frame codes, in order (gaps are frames the encoder skipped, not RTMP's).
        let codes = result["codes"] as? Int ?? 0
        #expect(codes > 0 && Double(codes) >= codeShare * Double(frames), "\(codes) codes read in \(frames) frames: \(result)")
        #expect(result["codesIncrease"] as? Bool == true, "\(result)")
    }

    /// "N frames" from the output's line in the summary `livepush stream` prints at the end.
    static func framesSent(_ log: String) -> Int? {
        guard let match = log.firstMatch(of: /rtmp[^\n]*?: \w+, (\d+) frames,/) else { return nil }
        return Int(match.1)
    }
}
