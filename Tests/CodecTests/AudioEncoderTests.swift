import Capture
import MediaCore
import Testing
@testable import Codec

@Suite struct AudioEncoderTests {
    /// Encodes `seconds` of a tone, decodes it back and returns (decoded samples, encoder, packets).
    static func roundTrip(codec: AudioCodec, format: AudioFormat, frequency: Double, seconds: Int)
        throws -> (samples: [Float], encoder: AudioEncoder, packets: [EncodedAudioFrame], start: Int64) {
        let start: Int64 = 7_000_000_000
        let source = try SyntheticAudioSource(signal: .tone(frequencyHz: frequency, amplitude: 0.5), format: format,
                                              paced: false, startNanos: start)
        let encoder = try AudioEncoder(settings: AudioEncoderSettings(codec: codec, format: format))
        var packets = [EncodedAudioFrame]()
        var captured = 0
        while captured < seconds * format.sampleRate {
            let chunk = try source.read()
            captured += chunk.frameCount
            try encoder.encode(chunk) { packets.append($0) }
        }
        try encoder.flush { packets.append($0) }
        let decoder = try AudioDecoder(codec: codec, extradata: encoder.extradata, format: format)
        for packet in packets { try decoder.decode(packet) }
        try decoder.flush()
        return (decoder.samples, encoder, packets, start)
    }

    /// Frequency from upward zero crossings over the middle of the signal (edges excluded).
    static func measuredFrequency(_ samples: [Float], sampleRate: Int) -> Double {
        let window = samples[(sampleRate / 2)..<(samples.count - sampleRate / 2)]
        var crossings = [Int]()
        var previous = window.first ?? 0
        for (index, sample) in zip(window.indices, window) {
            if previous < 0 && sample >= 0 { crossings.append(index) }
            previous = sample
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 1 else { return 0 }
        return Double(crossings.count - 1) * Double(sampleRate) / Double(last - first)
    }

    @Test(arguments: [
        (AudioCodec.aac, AudioFormat(sampleRate: 48_000, channels: 2), 1000.0),
        (.aac, AudioFormat(sampleRate: 44_100, channels: 1), 440.0),
        (.opus, AudioFormat(sampleRate: 48_000, channels: 2), 1000.0),
        (.opus, AudioFormat(sampleRate: 48_000, channels: 1), 440.0),
    ])
    func fiveSecondsOfToneDecodeToTheRightDurationAndPitch(codec: AudioCodec, format: AudioFormat, frequency: Double) throws {
        let (samples, encoder, packets, start) = try Self.roundTrip(codec: codec, format: format, frequency: frequency, seconds: 5)
        #expect(encoder.frameSize == codec.frameSize)
        #expect(encoder.primingSamples == (codec == .aac ? 1024 : 312))
        // Decoded length = captured samples + priming, rounded up to whole frames.
        let input = 5 * format.sampleRate
        let trimmed = samples.count - encoder.primingSamples
        #expect(trimmed >= input && trimmed < input + encoder.frameSize, "decoded \(samples.count) samples")
        let measured = Self.measuredFrequency(Array(samples.dropFirst(encoder.primingSamples)), sampleRate: format.sampleRate)
        #expect(abs(measured - frequency) < 1, "measured \(measured) Hz")
        // Timestamps: the first packet starts one priming earlier, then exactly one frame apart.
        let frameNanos = format.nanos(forFrames: encoder.frameSize)
        #expect(packets.first?.ptsNanos == start - format.nanos(forFrames: encoder.primingSamples))
        for (previous, next) in zip(packets, packets.dropFirst().dropLast()) {
            #expect(abs(next.ptsNanos - previous.ptsNanos - frameNanos) <= 1)
        }
    }

    @Test(arguments: [(48_000, 2, [0x11, 0x90] as [UInt8]), (44_100, 1, [0x12, 0x08])])
    func audioSpecificConfigMatchesTheAACEncoder(sampleRate: Int, channels: Int, expected: [UInt8]) throws {
        // AAC LC (2) | frequency index (3 = 48k, 4 = 44.1k) | channels | 000
        let config = try AudioSpecificConfig(sampleRate: sampleRate, channels: channels)
        #expect(config.bytes == expected)
        let encoder = try AudioEncoder(settings: AudioEncoderSettings(codec: .aac, format: AudioFormat(sampleRate: sampleRate, channels: channels)))
        // FFmpeg appends the explicit "no SBR" sync extension (0x2B7 …) after the two bytes.
        let fromEncoder = try #require(encoder.audioSpecificConfig)
        #expect(Array(fromEncoder.prefix(2)) == expected)
        #expect(try AudioSpecificConfig(bytes: fromEncoder) == config)
        #expect(try AudioSpecificConfig(bytes: expected) == config)
    }

    @Test func opusRejects44100NamingTheSetting() {
        #expect(throws: CodecError.invalidSetting(setting: "sample-rate", value: "44100", reason: "Opus runs at 48000 Hz; capture at 48000")) {
            try AudioEncoder(settings: AudioEncoderSettings(codec: .opus, format: AudioFormat(sampleRate: 44_100, channels: 2)))
        }
    }

    @Test func badFormatNamesTheSetting() {
        #expect(throws: CaptureError.self) { try SyntheticAudioSource(signal: .silence, format: AudioFormat(sampleRate: 22_050)) }
        do {
            _ = try AudioEncoder(settings: AudioEncoderSettings(codec: .aac, format: AudioFormat(channels: 6)))
            Issue.record("6 channels should be refused")
        } catch {
            #expect(error.description.contains("'channels'"))
        }
    }
}
