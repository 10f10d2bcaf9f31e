import Capture
import MediaCore
import Testing
@testable import Codec

/// ``AudioEncoder/resumeAfterPause()``: an on-demand camera's microphone pauses with the camera; the
/// audio after the pause is timestamped at its capture time, as the video captured with it is.
extension AudioEncoderTests {
    @Test(arguments: [AudioCodec.aac, .opus])
    func audioAfterAPauseIsTimestampedAtItsCaptureTime(codec: AudioCodec) throws {
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        let start: Int64 = 7_000_000_000, resumedAt: Int64 = 18_000_000_000
        let encoder = try AudioEncoder(settings: AudioEncoderSettings(codec: codec, format: format))
        var packets = [EncodedAudioFrame]()
        // 1.005 s before the pause: the last frame is cut short by it.
        let before = try SyntheticAudioSource(signal: .tone(frequencyHz: 440, amplitude: 0.5), format: format, chunkDurationMillis: 5,
                                              paced: false, startNanos: start)
        for _ in 0..<201 { try encoder.encode(try before.read()) { packets.append($0) } }
        encoder.resumeAfterPause()
        let after = try SyntheticAudioSource(signal: .tone(frequencyHz: 440, amplitude: 0.5), format: format, paced: false, startNanos: resumedAt)
        for _ in 0..<100 { try encoder.encode(try after.read()) { packets.append($0) } }
        try encoder.flush { packets.append($0) }

        for (previous, next) in zip(packets, packets.dropFirst()) {
            #expect(next.ptsNanos >= previous.ptsNanos + previous.durationNanos, "\(previous.ptsNanos) then \(next.ptsNanos)")
        }
        // The frame the pause cut short came out (completed with silence), still before the pause.
        let beforeGap = packets.filter { $0.ptsNanos < start + 2_000_000_000 }
        let afterGap = packets.filter { $0.ptsNanos >= start + 2_000_000_000 }
        let pausedAtNanos = start + format.nanos(forFrames: 201 * 240)
        let lastBeforePause = try #require(beforeGap.last)
        #expect(lastBeforePause.ptsNanos + lastBeforePause.durationNanos >= pausedAtNanos - format.nanos(forFrames: encoder.primingSamples))
        // The first packet after the pause starts at the capture time of its first chunk: the encoder ran on, so no new priming.
        let firstResumed = try #require(afterGap.first)
        #expect(firstResumed.ptsNanos == resumedAt, "\(firstResumed.ptsNanos - resumedAt) ns off")
        #expect(afterGap.count >= 1_000_000_000 / format.nanos(forFrames: encoder.frameSize), "a second of audio after the pause: \(afterGap.count)")

        // One decoder takes both sides, as a player would.
        let decoder = try AudioDecoder(codec: codec, extradata: encoder.extradata, format: format)
        for packet in packets { try decoder.decode(packet) }
        try decoder.flush()
        #expect(decoder.samples.count >= 2 * format.sampleRate, "decoded \(decoder.samples.count) samples")
    }

    @Test func withoutAPauseTheTimelineCountsSamplesEvenWhenCaptureTimesJitter() throws {
        let format = AudioFormat(sampleRate: 48_000, channels: 1)
        let encoder = try AudioEncoder(settings: AudioEncoderSettings(codec: .aac, format: format))
        var packets = [EncodedAudioFrame]()
        for index in 0..<200 {
            // Chunks late by up to 3 ms, as a busy capture thread reads them.
            let chunk = AudioChunk(format: format, samples: [Int16](repeating: 0, count: 480),
                                   captureTimeNanos: Int64(index) * 10_000_000 + Int64(index % 4) * 1_000_000)
            try encoder.encode(chunk) { packets.append($0) }
        }
        let frameNanos = format.nanos(forFrames: encoder.frameSize)
        for (previous, next) in zip(packets, packets.dropFirst()) { #expect(abs(next.ptsNanos - previous.ptsNanos - frameNanos) <= 1) }
    }
}
