import Foundation
import Testing
import TestSupport

extension LivepushStreamTests {
    /// `livepush serve` with `adaptive_bitrate: true` on its RTMP output, beside a WHEP output on the
    /// same encode: a 600 kbit/s link holds the camera's encoder below its 2 Mbit/s target (the API's
    /// status says so), and stopping that output through the API lifts the cap.
    @Test func serveFollowsTheLinkAndStoppingTheOutputLiftsTheCap() throws {
        let run = try ThrottledServe(adaptiveBitrate: true)
        defer { run.close() }
        #expect(run.serve.waitUntil(timeoutSeconds: 30) { (1..<1_000_000).contains(run.encoderBitrate()) },
                "the encoder came down: \(String(describing: run.camera())); \(run.serve.errorOutput.suffix(1500))")
        #expect(run.camera()?["targetBitrateBitsPerSecond"] as? Int == 2_000_000)
        try run.post("/api/cameras/cam0/outputs/rtmp/stop")
        #expect(run.serve.waitUntil(timeoutSeconds: 15) { run.encoderBitrate() == 2_000_000 },
                "the stopped output lifted its cap: \(String(describing: run.camera()))")
        #expect(run.stop() == 0, "serve exits cleanly on SIGTERM: \(run.serve.errorOutput.suffix(1500))")
    }

    /// Without adaptive bitrate the same link backs up; stopping that output through the API, and
    /// then the whole process with SIGTERM (systemd's stop), still finish promptly.
    @Test func serveStopsAThrottledOutputAndExitsPromptly() throws {
        let run = try ThrottledServe(adaptiveBitrate: false)
        defer { run.close() }
        #expect(run.serve.waitUntil(timeoutSeconds: 30) { (run.camera()?["outputs"] as? [[String: Any]])?.first?["droppedFrames"] as? Int ?? 0 > 30 },
                "the link fell behind: \(String(describing: run.camera()))")
        #expect(run.encoderBitrate() == 2_000_000, "nothing adapts without adaptive_bitrate")
        try run.post("/api/cameras/cam0/outputs/rtmp/stop")
        #expect(run.stop() == 0, "serve exits cleanly on SIGTERM: \(run.serve.errorOutput.suffix(1500))")
    }

    /// `livepush serve` streaming a 2 Mbit/s noise clip to RTMP through a 600 kbit/s proxy to nginx-rtmp,
    /// beside a WHEP output on the same encode.
    struct ThrottledServe {
        let nginx: NginxRTMPServer
        let proxy: ThrottlingProxy
        let live: LivepushServe
        var serve: BackgroundProcess { live.process }

        init(adaptiveBitrate: Bool) throws {
            let directory = try TemporaryDirectory()
            let clip = try LivepushStreamTests.makeNoisyClip(in: directory)
            nginx = try NginxRTMPServer()
            proxy = try ThrottlingProxy(to: nginx.port, bytesPerSecond: 600_000 / 8)
            live = try LivepushServe(directory: directory, cameras: """
              - id: cam0
                source: file:\(clip)?loop
                size: \(LivepushStreamTests.width)x\(LivepushStreamTests.height)
                fps: 30
                encoder: {bitrate: 2000k, keyint: 2s}
                outputs:
                  - rtmp: {url: rtmp://127.0.0.1:\(proxy.port)/live, key: serve, adaptive_bitrate: \(adaptiveBitrate)}
                  - whep: {max_viewers: 2}
            """)
        }

        func camera() -> [String: Any]? { live.camera() }

        func encoderBitrate() -> Int { camera()?["encoderBitrateBitsPerSecond"] as? Int ?? -1 }

        func post(_ path: String) throws { try live.post(path) }

        func stop() -> Int32? { live.stop() }

        /// Never leaves a process behind, whatever failed.
        func close() {
            live.close()
            proxy.close()
        }
    }
}
