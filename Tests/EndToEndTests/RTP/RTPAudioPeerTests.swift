import Foundation
import Testing
import TestSupport

/// `--rtp` with `--audio`: Opus on PORT + 2 beside H.264, described by the SDP's m=audio section,
/// decoded by ffmpeg from the SDP alone (plain RTP and SRTP).
@Suite(.serialized, .timeLimit(.minutes(2))) struct RTPAudioPeerTests {
    /// The tone's frequency from mono 16-bit samples: zero crossings per second, halved.
    static func frequency(ofS16LE bytes: [UInt8], sampleRate: Int) -> Double {
        let samples = stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        let crossings = zip(samples, samples.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        return Double(crossings) / 2 / (Double(samples.count) / Double(sampleRate))
    }

    @Test(arguments: [false, true]) func ffmpegDecodesOpusAndH264FromTheSDP(srtp: Bool) throws {
        let directory = try TemporaryDirectory()
        let port = try LoopbackUDPSocket.freePorts(count: 4)
        let sdpPath = directory.file("stream.sdp")
        let stream = try LivepushRTPStream(port: port, arguments: ["--audio", "tone", "--sdp", sdpPath] + (srtp ? ["--srtp-key", "generate"] : []))
        let sdp = try #require(stream.waitForSessionDescription(at: sdpPath), "no SDP: \(stream.process.output) \(stream.process.errorOutput)")
        #expect(sdp.contains("m=audio \(port + 2) RTP/\(srtp ? "SAVP" : "AVP") 97\r\na=rtpmap:97 opus/48000/2\r\n"), "\(sdp)")
        #expect(sdp.components(separatedBy: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:").count == (srtp ? 3 : 1), "a key per m-section: \(sdp)")
        // Two seconds of both: frames as raw video, audio as mono 48 kHz samples.
        try ExternalTool.run("ffmpeg", [
            "-hide_banner", "-nostdin", "-v", "error", "-protocol_whitelist", "file,udp,rtp,srtp", "-i", sdpPath,
            "-map", "0:v:0", "-frames:v", "60", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-y", directory.file("video.yuv"),
            "-map", "0:a:0", "-t", "2", "-ac", "1", "-ar", "48000", "-f", "s16le", "-y", directory.file("audio.raw"),
        ], timeoutSeconds: 40)
        stream.process.kill(signal: SIGTERM)
        let video = try FFmpegCLI.bytes(of: directory.file("video.yuv"))
        #expect(video.count == 60 * LivepushRTPStream.width * LivepushRTPStream.height * 3 / 2, "60 decoded frames")
        let audio = try FFmpegCLI.bytes(of: directory.file("audio.raw"))
        #expect(audio.count >= 48_000 * 2 * 3 / 2, "at least 1.5 s of decoded audio: \(audio.count) bytes")
        // Past the decoder's start-up, the 440 Hz tone livepush encodes.
        let frequency = Self.frequency(ofS16LE: Array(audio.dropFirst(48_000)), sampleRate: 48_000)
        #expect(abs(frequency - 440) < 5, "tone at \(frequency) Hz")
        #expect(stream.process.wait(timeoutSeconds: 10) == 0, "clean stop: \(stream.process.errorOutput)")
    }
}
