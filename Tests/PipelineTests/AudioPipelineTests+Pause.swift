import Capture
import Codec
import MediaCore
import Pipeline
import Recording
import Testing
import TestSupport

/// ``StreamPipeline/pauseAudio()`` and ``StreamPipeline/resumeAudio()``, what an on-demand camera's
/// microphone does as the camera idles and starts: the audio stops while video runs on, then goes on
/// at its capture times, so the recording's audio has a gap the length of the pause and ends with the video.
extension AudioPipelineTests {
    @Test func pausedAudioCapturesNothingAndResumesOnTheVideoClock() async throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("av.mp4")
        let pipeline = try StreamPipeline(
            capturer: TestPatternCapturer(source: TestPatternSource(), config: CaptureConfig(size: VideoSize(width: 320, height: 240))),
            encoderSettings: VideoEncoderSettings(width: 320, height: 240, bitrateBitsPerSecond: 500_000, keyframeIntervalSeconds: 1),
            audioSource: try SyntheticAudioSource(signal: .tone(frequencyHz: 440, amplitude: 0.5)),
            outputs: [RecordingOutput(settings: RecordingSettings(path: path))])
        _ = try await pipeline.start()
        // Waits on the audio's own count (bounded), so a slow start on a busy machine cannot cut it short.
        func waitForChunks(above count: Int) async throws {
            for _ in 0..<200 where (pipeline.status.audio?.chunksCaptured ?? 0) <= count { try await Task.sleep(for: .milliseconds(50)) }
        }
        try await waitForChunks(above: 100)
        // The pause as it really lasted (the sleep and the checks below), not as it was asked for.
        let pausedAt = MonotonicClock.nowNanos()
        pipeline.pauseAudio()
        let paused = try #require(pipeline.status.audio)
        #expect(paused.state == .paused && paused.chunksCaptured > 100, "\(paused)")
        try await Task.sleep(for: .seconds(1.5))
        #expect(pipeline.status.audio?.chunksCaptured == paused.chunksCaptured, "nothing captured while paused")
        #expect(pipeline.status.audio?.framesEncoded == paused.framesEncoded, "nothing encoded while paused")
        let pause = Double(MonotonicClock.nowNanos() - pausedAt) / 1e9
        try pipeline.resumeAudio()
        try await waitForChunks(above: paused.chunksCaptured + 100)
        let resumed = try #require(pipeline.status.audio)
        #expect(resumed.state == .capturing && resumed.chunksCaptured > paused.chunksCaptured + 100, "\(resumed)")
        await pipeline.stop()
        #expect(pipeline.status.audio?.state == .stopped)

        let audio = try FFmpegCLI.packetTimes(path), video = try FFmpegCLI.packetTimes(path, stream: "v:0")
        let gaps = zip(audio, audio.dropFirst()).map { $1 - $0 }.filter { $0 > 0.2 }
        #expect(gaps.count == 1 && abs((gaps.first ?? 0) - pause) < 0.3, "one gap of the pause (\(pause) s) in the audio: \(gaps)")
        let (audioEnd, videoEnd) = (audio.max() ?? 0, video.max() ?? 0)
        #expect(abs(audioEnd - videoEnd) < 0.3, "audio after the pause on the video's clock: audio ends at \(audioEnd) s, video at \(videoEnd) s")
        let decoded = try ExternalTool.run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a", "-f", "null", "-"], timeoutSeconds: 30, check: false)
        #expect(decoded.status == 0 && decoded.errorOutput.isEmpty, "every audio packet decodes: \(decoded.errorOutput.suffix(800))")
    }
}
