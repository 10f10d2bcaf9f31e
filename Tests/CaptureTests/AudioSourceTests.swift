import Testing
import MediaCore
@testable import Capture

@Suite struct AudioSourceTests {
    @Test func missingALSADeviceIsAClearError() {
        do {
            _ = try AudioCapturer(device: "hw:9,0")
            Issue.record("hw:9,0 should not exist here")
        } catch {
            switch error {
            case .audioDeviceNotFound(let device, _), .audioDeviceFailed(let device, _, _):
                #expect(device == "hw:9,0")
                #expect(error.description.contains("hw:9,0"))
            default:
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func nullDeviceCapturesTimestampedChunks() throws {
        // ALSA's null PCM is defined in alsa.conf, which Debian's libasound2-data ships (install-deps --test).
        let capturer = try AudioCapturer(device: "null", format: AudioFormat(sampleRate: 48_000, channels: 2))
        defer { capturer.close() }
        let before = MonotonicClock.nowNanos()
        let chunk = try capturer.read()
        #expect(chunk.frameCount == 480)
        #expect(chunk.captureTimeNanos <= MonotonicClock.nowNanos())
        #expect(chunk.captureTimeNanos > before - 1_000_000_000)
    }

    /// ALSA's null device never blocks: held to the clock, 60 chunks (600 ms of audio) take at least
    /// 600 ms less the 200 ms a device may run ahead, instead of spinning the capture thread through
    /// them at once; their capture times advance with the clock.
    @Test func aDeviceThatNeverBlocksIsHeldToTheClock() throws {
        let capturer = try AudioCapturer(device: "null", format: AudioFormat(sampleRate: 48_000, channels: 2))
        defer { capturer.close() }
        let start = MonotonicClock.nowNanos()
        var times: [Int64] = []
        for _ in 0..<60 { times.append(try capturer.read().captureTimeNanos) }
        let elapsed = MonotonicClock.nowNanos() - start
        #expect(elapsed >= 390_000_000, "60 chunks read in \(elapsed / 1_000_000) ms")
        #expect(times.last! - times.first! >= 190_000_000, "capture times \(times.first!)…\(times.last!)")
    }

    @Test func pacedToneKeepsRealTime() throws {
        let start = MonotonicClock.nowNanos()
        let source = try SyntheticAudioSource(signal: .silence, format: AudioFormat(sampleRate: 48_000, channels: 1), startNanos: start)
        var chunks = [AudioChunk]()
        for _ in 0..<4 { chunks.append(try source.read()) }
        // Chunk k is due at start + k·10 ms: reading 4 takes at least 30 ms.
        #expect(MonotonicClock.nowNanos() - start >= 30_000_000)
        #expect(chunks.map(\.captureTimeNanos) == (0..<4).map { start + Int64($0) * 10_000_000 })
        #expect(chunks.allSatisfy { $0.samples.allSatisfy { $0 == 0 } && $0.frameCount == 480 })
    }

    @Test func nullDeviceClosesAndOpensAgainCapturingFromNow() throws {
        let capturer = try AudioCapturer(device: "null", format: AudioFormat(sampleRate: 48_000, channels: 2))
        defer { capturer.close() }
        _ = try capturer.read()
        capturer.close()
        #expect(throws: CaptureError.audioSourceClosed(device: "null")) { try capturer.read() }
        let reopened = MonotonicClock.nowNanos()
        try capturer.reopen()
        let chunk = try capturer.read()
        #expect(chunk.frameCount == 480)
        // ALSA started afresh: the chunk was captured after the reopen, less ALSA's 100 ms buffer at most.
        #expect(chunk.captureTimeNanos > reopened - 100_000_000 - 10_000_000, "\(chunk.captureTimeNanos - reopened) ns after the reopen")
    }

    @Test func pacedToneGoesOnFromNowAfterAReopen() throws {
        let start = MonotonicClock.nowNanos() - 5_000_000_000
        let source = try SyntheticAudioSource(signal: .tone(frequencyHz: 440, amplitude: 0.5), format: AudioFormat(sampleRate: 48_000, channels: 1),
                                              startNanos: start)
        // Chunks due 5 s ago come at once, as they would from a paused source not told it paused.
        let stale = try source.read()
        #expect(stale.captureTimeNanos == start)
        let reopened = MonotonicClock.nowNanos()
        try source.reopen()
        let chunks = try (0..<3).map { _ in try source.read() }
        #expect(chunks[0].captureTimeNanos >= reopened && chunks[0].captureTimeNanos <= MonotonicClock.nowNanos())
        #expect(zip(chunks, chunks.dropFirst()).allSatisfy { $1.captureTimeNanos - $0.captureTimeNanos == 10_000_000 })
        #expect(MonotonicClock.nowNanos() - reopened >= 20_000_000, "paced: the third chunk is due 20 ms after the first")
    }
}
