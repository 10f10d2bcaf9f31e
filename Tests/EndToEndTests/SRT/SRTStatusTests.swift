import Config
import Engine
import Foundation
import Testing
import TestSupport

/// libsrt's statistics reach `/api/status` (``Engine/StatusReport``) and `/metrics` through the
/// engine `serve` runs, for a `srt:` output of the YAML config.
@Suite(.serialized, .timeLimit(.minutes(2))) struct SRTStatusTests {
    @Test func statusAndMetricsCarryLibsrtStatistics() async throws {
        let port = try SRTPeers.freePort()
        let dir = try TemporaryDirectory()
        let receiver = try SRTPeers.ffmpegListener(port: port, passphrase: "status passphrase", writingTo: dir.file("out.ts"))
        try await Task.sleep(for: .milliseconds(500))
        let config = try ConfigParser(file: "livepush.yaml", environment: ["SRT_PASSPHRASE": "status passphrase"]).parse("""
        cameras:
          - id: cam0
            source: testpattern
            size: 320x240
            fps: 15
            encoder: {bitrate: 300k, preset: ultrafast}
            outputs:
              - srt: {url: 'srt://127.0.0.1:\(port)?latency=150', passphrase: env:SRT_PASSPHRASE}
        """)
        let metrics = EngineMetrics()
        let broadcaster = Broadcaster(config: config, metrics: metrics)
        try await broadcaster.start()
        var acknowledged: OutputReport?
        for _ in 0..<100 {
            let output = await broadcaster.status().cameras.first?.outputs.first
            if let srt = output?.srt, srt.acknowledgementsReceived > 10, srt.packetsSent > 50 {
                acknowledged = output
                break
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let text = metrics.render()
        await broadcaster.stop()
        withExtendedLifetime(receiver) {}
        let output = try #require(acknowledged, "no ACKs in the status")
        #expect(output.kind == "srt" && output.state == "running")
        #expect(output.target == "srt://127.0.0.1:\(port)?passphrase=***&latency=150")
        #expect(output.srt?.latencyMilliseconds == 150 && output.rttMilliseconds != nil)
        #expect(output.health == "healthy", "a receiver that acknowledges keeps the output healthy: \(String(describing: output.health))")
        #expect(output.delivery?.evidence == "SRT acknowledgement" && (output.delivery?.bytesAcknowledged ?? 0) > 0, "\(String(describing: output.delivery))")
        let json = String(decoding: try JSONEncoder().encode(output), as: UTF8.self)
        #expect(json.contains("\"acknowledgementsReceived\"") && json.contains("\"sendBufferMilliseconds\""), "\(json)")
        #expect(!json.contains("status passphrase"))
        for name in ["livepush_srt_send_buffer_seconds", "livepush_srt_acks_received_total", "livepush_srt_retransmitted_packets_total",
                     "livepush_srt_too_late_dropped_packets_total", "livepush_output_rtt_seconds", "livepush_output_health"] {
            #expect(text.contains("\(name){"), "\(name) missing from /metrics")
        }
    }
}
