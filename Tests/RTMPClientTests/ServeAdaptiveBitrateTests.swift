import Foundation
import Testing
import TestSupport

extension LivepushStreamTests {
    /// `livepush serve` with `adaptive_bitrate: true` on its RTMP output, beside a WHEP output on the
    /// same encode: a 600 kbit/s link holds the camera's encoder below its 2 Mbit/s target (the API's
    /// status says so), and stopping that output through the API lifts the cap.
    @Test func serveFollowsTheLinkAndStoppingTheOutputLiftsTheCap() throws {
        let directory = try TemporaryDirectory()
        let clip = try Self.makeNoisyClip(in: directory)
        let nginx = try NginxRTMPServer()
        let proxy = try ThrottlingProxy(to: nginx.port, bytesPerSecond: 600_000 / 8)
        defer { proxy.close() }
        let port = Int.random(in: 41000...49000)
        try """
        listen: 127.0.0.1:\(port)
        cameras:
          - id: cam0
            source: file:\(clip)?loop
            size: \(Self.width)x\(Self.height)
            fps: 30
            encoder: {bitrate: 2000k, keyint: 2s}
            outputs:
              - rtmp: {url: rtmp://127.0.0.1:\(proxy.port)/live, key: serve, adaptive_bitrate: true}
              - whep: {max_viewers: 2}
        """.write(toFile: directory.file("serve.yaml"), atomically: true, encoding: .utf8)
        let serve = try BackgroundProcess(try LivepushBinary.path(), ["serve", "--config", directory.file("serve.yaml")])
        defer {
            serve.kill(signal: SIGTERM)
            _ = serve.wait(timeoutSeconds: 15)
        }
        func camera() -> [String: Any]? {
            guard let result = try? ExternalTool.run("curl", ["-sf", "-m", "3", "http://127.0.0.1:\(port)/api/status"], timeoutSeconds: 10),
                  let status = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] else { return nil }
            return (status["cameras"] as? [[String: Any]])?.first
        }
        func encoderBitrate() -> Int { camera()?["encoderBitrateBitsPerSecond"] as? Int ?? -1 }

        #expect(serve.waitUntil(timeoutSeconds: 30) { (1..<1_000_000).contains(encoderBitrate()) },
                "the encoder came down: \(String(describing: camera())); \(serve.errorOutput.suffix(1500))")
        #expect(camera()?["targetBitrateBitsPerSecond"] as? Int == 2_000_000)
        try ExternalTool.run("curl", ["-sf", "-m", "10", "-X", "POST", "http://127.0.0.1:\(port)/api/cameras/cam0/outputs/rtmp/stop"],
                             timeoutSeconds: 20)
        #expect(serve.waitUntil(timeoutSeconds: 15) { encoderBitrate() == 2_000_000 },
                "the stopped output lifted its cap: \(String(describing: camera()))")
    }
}
