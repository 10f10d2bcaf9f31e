import Config
import Engine
import Foundation
import Testing
import TestSupport

/// A camera with `adapt: {cpu: true}` reports its rung in `/api/status` (``Engine/CameraReport/adaptation``)
/// and `/metrics`; one without reports none.
@Suite(.serialized, .timeLimit(.minutes(1))) struct AdaptationStatusTests {
    @Test func statusAndMetricsCarryTheRung() async throws {
        let dir = try TemporaryDirectory()
        let config = try ConfigParser(file: "livepush.yaml", environment: [:]).parse("""
        cameras:
          - id: adapting
            size: 640x360
            fps: 10
            encoder: {name: libx264, bitrate: 300k, preset: ultrafast}
            adapt: {cpu: true, min_size: 320x180, min_fps: 5}
            outputs:
              - record: {path: \(dir.file("a.mp4"))}
          - id: fixed
            size: 320x180
            fps: 10
            encoder: {name: libx264, bitrate: 300k, preset: ultrafast}
            outputs:
              - record: {path: \(dir.file("b.mp4"))}
        """)
        let metrics = EngineMetrics()
        let broadcaster = Broadcaster(config: config, metrics: metrics)
        try await broadcaster.start()
        var report: StatusReport?
        for _ in 0..<100 {
            let status = await broadcaster.status()
            if status.cameras.allSatisfy({ $0.framesEncoded > 5 }) { report = status; break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let text = metrics.render()
        await broadcaster.stop()
        let cameras = try #require(report?.cameras, "no frames encoded")
        let adaptation = try #require(cameras.first { $0.id == "adapting" }?.adaptation)
        // 640x360@10 down to 480x270@10, 320x180@10, then 320x180@5: four rungs; a light encode stays on the first.
        #expect(adaptation.rung == "640x360@10" && adaptation.rungIndex == 0 && adaptation.rungCount == 4, "\(adaptation)")
        #expect(adaptation.stepsDown == 0 && adaptation.lastReason == nil)
        #expect(cameras.first { $0.id == "fixed" }?.adaptation == nil)
        let json = String(decoding: try JSONEncoder().encode(cameras[0]), as: UTF8.self)
        #expect(json.contains("\"adaptation\":{") && json.contains("\"rung\":\"640x360@10\""), "\(json)")
        for name in ["livepush_adaptation_rung{camera=\"adapting\"}", "livepush_adaptation_height_pixels{camera=\"adapting\"} 360",
                     "livepush_adaptation_steps_total{camera=\"adapting\",direction=\"down\"} 0"] {
            #expect(text.contains(name), "\(name) in /metrics: \(text.split(separator: "\n").filter { $0.contains("adaptation") })")
        }
        #expect(!text.contains("livepush_adaptation_rung{camera=\"fixed\"}"))
    }
}
