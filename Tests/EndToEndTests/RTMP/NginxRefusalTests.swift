import Foundation
import Output
import RTMP
import RTMPClient
import Testing
import TestSupport

/// A refusal from a real server reaches the user as a typed error naming the server's code and words.
@Suite(.timeLimit(.minutes(2))) struct NginxRefusalTests {
    /// nginx-rtmp refuses a second publisher of a stream key with onStatus NetStream.Publish.BadName,
    /// level "error", "Already publishing": the ffmpeg CLI holds the key, then livepush tries it.
    @Test func aKeyInUseIsRefusedNamingTheCode() async throws {
        let nginx = try NginxRTMPServer()
        let holder = try BackgroundProcess(
            "ffmpeg",
            ["-hide_banner", "-nostats", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", "-t", "60",
             "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-f", "flv", nginx.url(key: "secret-key")])
        defer { holder.kill(signal: SIGTERM) }
        let held = holder.waitUntil(timeoutSeconds: 20) { !nginx.recordings.isEmpty }
        try #require(held, "the ffmpeg CLI did not publish: \(holder.errorOutput.suffix(1000))")

        let output = RTMPOutput(configuration: RTMPOutputConfiguration(
            url: try RTMPURL(nginx.url(key: "secret-key")),
            stream: RTMPStreamDescription(codec: .h264, width: 640, height: 360, framesPerSecond: 30, videoBitrateBitsPerSecond: 1_000_000)))
        try await output.start(OutputStartContext())
        let refused = await eventually(within: 20) { output.status.lastError?.contains("NetStream.Publish.BadName") == true }
        let lastError = output.status.lastError ?? "none"
        await output.stop()
        #expect(refused, "last error: \(lastError)")
        #expect(lastError.contains("Already publishing"), "nginx-rtmp's description: \(lastError)")
        #expect(holder.isRunning, "the first publisher keeps its stream")
    }
}
