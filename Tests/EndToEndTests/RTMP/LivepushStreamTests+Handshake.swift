import Foundation
import Testing
import TestSupport

extension LivepushStreamTests {
    /// A server whose S2 is not an echo of C1 (what a digest-handshake server sends): nginx-rtmp behind a
    /// proxy that replaces S2 with random bytes. The ffmpeg CLI publishes through it, and so must livepush.
    @Test func publishesToAServerWhoseS2IsNoEcho() throws {
        let nginx = try NginxRTMPServer()
        let proxy = try S2RewritingProxy(to: nginx.port)
        defer { proxy.close() }
        let url = "rtmp://127.0.0.1:\(proxy.port)/live/"
        try FFmpegCLI.ffmpeg(["-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "2",
                              "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-f", "flv", url + "ffmpeg"],
                             timeoutSeconds: 60)
        let log = try Self.finish(try Self.stream([url + "livepush"], seconds: 4), within: 60)
        #expect(!log.contains("connection lost"), "\(log.suffix(1500))")
        #expect(proxy.rewrittenHandshakes == 2, "both publishers' S2 went through the proxy")
        nginx.waitForRecordingsToSettle()
        let name = { (path: String) in (path as NSString).lastPathComponent }
        #expect(nginx.recordings.contains { name($0).hasPrefix("ffmpeg") }, "the ffmpeg CLI published: \(nginx.recordings)")
        let recording = try #require(nginx.recordings.first { name($0).hasPrefix("livepush") }, "livepush published: \(log.suffix(1500))")
        // Checked on livepush's own counts: frames a loaded machine dropped before the encoder are
        // its gaps, not lost frames (a frame-rate check in seconds failed here at load 10).
        let run = try #require(RunCounts(summary: log, output: ":\(proxy.port)/"), "\(log.suffix(800))")
        try Self.expectValidStream(recording, minimumSeconds: 3.6, maximumSeconds: 4.4, run: run)
    }
}
