import Capture
import MediaCore
import Testing

/// The simulators made to drift (docs/audio-video-sync.md): a sound card whose chunks come slower
/// than its nominal rate, and the source names that ask for one.
extension AudioSourceTests {
    @Test func aDriftingCardStretchesItsChunksOnTheClock() throws {
        let source = try SyntheticAudioSource(signal: .silence, format: AudioFormat(sampleRate: 48_000, channels: 1), paced: false,
                                              driftPPM: -1000, startNanos: 0)
        let times = try (0..<101).map { _ in try source.read().captureTimeNanos }
        // 480 frames at 47 952 Hz: 10.01001 ms; 100 chunks 1.001001 s.
        #expect(times[1] == 10_010_010 && times[100] == 1_001_001_001, "\(times[1]) \(times[100])")
    }

    @Test func ticksMarkEachSecondOfCaptureTime() throws {
        let source = try SyntheticAudioSource(signal: .ticks(amplitude: 0.5), format: AudioFormat(sampleRate: 48_000, channels: 1), paced: false,
                                              driftPPM: 10_000, startNanos: 0)
        let samples = try (0..<250).flatMap { _ in try source.read().samples }
        let loud = samples.indices.filter { abs(Int(samples[$0])) > 1000 }
        // At 48 480 Hz a second of capture time is 48 480 frames; each burst lasts 5 ms (242 frames).
        #expect(loud.first == 1 && (loud.last ?? 0) < 48_480 * 2 + 243)
        #expect(loud.contains(48_481) && !loud.contains { (300..<48_480).contains($0) })
    }

    @Test func syntheticDevicesTakeADrift() throws {
        let format = AudioFormat(sampleRate: 48_000, channels: 1)
        let tone = try #require(try AudioSourceFactory.make(device: "tone?drift_ppm=-1000", format: format) as? SyntheticAudioSource)
        let (first, second) = (try tone.read().captureTimeNanos, try tone.read().captureTimeNanos)
        #expect(second - first == 10_010_010)
        #expect((try AudioSourceFactory.make(device: "ticks", format: format) as? SyntheticAudioSource)?.signal == .ticks(amplitude: 0.5))
        #expect(throws: CaptureError.self) { try AudioSourceFactory.make(device: "silence?drift_ppm=fast", format: format) }
        #expect(throws: CaptureError.self) { try AudioSourceFactory.make(device: "tone?drift_ppm=200000", format: format) }
    }
}
