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
}
