import Foundation
import Testing
import TestSupport

/// The drifting simulators named in a config, on the real `livepush serve`: a test pattern 1 % fast
/// and a ticking sound card 1 % slow. `/api/status` and `/metrics` show the card's drift measured
/// and the skew left after correction (docs/audio-video-sync.md); the recording read back is
/// ``AudioPipelineTests``' job.
@Suite(.serialized, .timeLimit(.minutes(2))) struct AudioClockProcessTests {
    @Test func statusAndMetricsShowTheDriftAndTheSkewLeft() throws {
        let directory = try TemporaryDirectory()
        let yaml = ServeYAML.config([ServeYAML.camera("desk", source: "testpattern?drift_ppm=10000", size: "320x240", fps: 15,
                                                      encoder: "{name: libx264, bitrate: 300k, keyint: 1}",
                                                      outputs: ["record: {path: \(directory.file("desk.mp4"))}"])])
            + "audio: {device: 'ticks?drift_ppm=-10000'}\n"
        let serve = try ServeUnderTest(yaml: yaml, in: directory)
        let audio = { (try? serve.cameraStatus("desk"))?["audio"] as? [String: Any] }
        // 10 s of audio: the loop's integral is at 71 % of the drift by then (1 − 3.5·ℯ^−2.5).
        #expect(serve.process.waitUntil(timeoutSeconds: 30) { (audio()?["chunksCaptured"] as? Int ?? 0) > 1000 }, "\(String(describing: audio()))")
        let status = try #require(audio())
        let drift = try #require(status["clockDriftPPM"] as? Double), skew = try #require(status["clockSkewMillis"] as? Double)
        #expect((-11_000 ... -6_000).contains(drift), "drift shown: \(drift) ppm")
        #expect(abs(skew) < 20, "skew left: \(skew) ms")
        #expect((status["clockCorrectionPPM"] as? Double ?? 0) > 6_000, "\(status)")
        let metrics = try Curl.body(["\(serve.baseURL)/metrics"])
        for name in ["livepush_audio_clock_skew_seconds", "livepush_audio_clock_drift_ppm", "livepush_audio_clock_correction_ppm"] {
            #expect(metrics.contains("\(name){camera=\"desk\"} "), "\(name) in \(metrics.prefix(2000))")
        }
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1500))")
    }
}
