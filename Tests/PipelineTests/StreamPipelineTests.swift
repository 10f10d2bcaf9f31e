import Capture
import Codec
import Foundation
import MediaCore
import Pipeline
import Recording
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2))) struct StreamPipelineTests {
    /// Frame codes of every frame of a recording, decoded by the ffmpeg CLI.
    static func frameCodes(of path: String, width: Int, height: Int) throws -> [FrameCode?] {
        try RecordedFrameCodes.read(path, width: width, height: height)
    }

    /// Test pattern → x264 at 1 Mbit/s → recording, through the same pipeline `livepush stream` runs;
    /// every recorded frame's code is checked (readable, in order, gaps only where drops were counted).
    /// Returns the recording's bitrate.
    static func recordTestPattern(busy: Bool, seconds: Double) async throws -> Int {
        let dir = try TemporaryDirectory()
        let size = VideoSize(width: 640, height: 360)
        let recording = RecordingOutput(settings: RecordingSettings(path: dir.file("out.mp4")))
        let pipeline = try StreamPipeline(
            capturer: TestPatternCapturer(source: TestPatternSource(busy: busy), config: CaptureConfig(size: size, framesPerSecond: 30)),
            encoderSettings: VideoEncoderSettings(width: 640, height: 360, bitrateBitsPerSecond: 1_000_000, keyframeIntervalSeconds: 1),
            outputs: [recording])
        _ = try await pipeline.start()
        // `seconds` of frames encoded, however long a busy machine takes (bounded): the checks below
        // are on what was encoded, not on how fast.
        let frames = Int(seconds * 30)
        for _ in 0..<Int(seconds * 100) where pipeline.status.encoder.encoded < frames { try await Task.sleep(for: .milliseconds(50)) }
        await pipeline.stop()
        let status = pipeline.status
        #expect(status.encoder.encoded >= frames, "\(status.encoder.encoded) of \(frames) frames encoded in \(seconds * 5) s")
        #expect(status.outputs.first?.status.framesSent == status.encoder.encoded)
        let codes = try Self.frameCodes(of: dir.file("out.mp4"), width: 640, height: 360)
        #expect(codes.count == status.encoder.encoded)
        let numbers = codes.compactMap { $0?.frameNumber }
        #expect(numbers.count == codes.count, "every recorded frame carries a readable code")
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "frames in capture order")
        // Frames dropped at stop, after the last recorded one, are counted but leave no gap.
        let gaps = Int(numbers.last ?? 0) - Int(numbers.first ?? 0) + 1 - numbers.count
        #expect(gaps <= status.captureDropped + status.encoder.dropped,
                "every gap in frame numbers is a counted drop: \(gaps) missing, \(status.captureDropped) + \(status.encoder.dropped) counted")
        let format = try FFmpegCLI.probe(dir.file("out.mp4"))["format"] as? [String: Any]
        return Int(format?["bit_rate"] as? String ?? "") ?? 0
    }

    @Test func testPatternToRecording() async throws {
        _ = try await Self.recordTestPattern(busy: false, seconds: 2)
    }

    /// The busy pattern's grain makes x264 spend the bitrate it is given (so benchmarks compare equal
    /// work with ffmpeg's testsrc2), where the plain pattern needs a fraction; its codes still read.
    @Test func busyTestPatternUsesTheWholeBitrate() async throws {
        let busy = try await Self.recordTestPattern(busy: true, seconds: 4)
        let plain = try await Self.recordTestPattern(busy: false, seconds: 4)
        #expect(busy > 850_000 && busy < 1_300_000, "busy pattern at a 1 Mbit/s target: \(busy) bit/s")
        #expect(plain < busy / 3, "plain pattern \(plain) bit/s against busy \(busy) bit/s")
    }
}

@Suite(.timeLimit(.minutes(2))) struct AudioPipelineTests {
    /// Test pattern + a 440 Hz tone → x264 + AAC → one MP4: both tracks present, lined up, and the
    /// tone decodes back at its frequency.
    @Test func toneIsRecordedBesideVideo() async throws {
        let dir = try TemporaryDirectory()
        let recording = RecordingOutput(settings: RecordingSettings(path: dir.file("av.mp4")))
        let pipeline = try StreamPipeline(
            capturer: TestPatternCapturer(source: TestPatternSource(), config: CaptureConfig(size: VideoSize(width: 320, height: 240))),
            encoderSettings: VideoEncoderSettings(width: 320, height: 240, bitrateBitsPerSecond: 500_000, keyframeIntervalSeconds: 1),
            audioSource: try SyntheticAudioSource(signal: .tone(frequencyHz: 440, amplitude: 0.5)),
            outputs: [recording])
        _ = try await pipeline.start()
        try await Task.sleep(for: .seconds(3))
        await pipeline.stop()
        #expect((pipeline.status.audio?.framesEncoded ?? 0) > 100)
        let streams = try #require(try FFmpegCLI.probe(dir.file("av.mp4"))["streams"] as? [[String: Any]])
        #expect(streams.map { $0["codec_name"] as? String } == ["h264", "aac"])
        let durations = streams.compactMap { Double($0["duration"] as? String ?? "") }
        #expect(durations.count == 2 && abs(durations[0] - durations[1]) < 0.5, "audio and video durations \(durations)")
        try FFmpegCLI.ffmpeg(["-i", dir.file("av.mp4"), "-vn", "-ac", "1", "-ar", "48000", "-f", "s16le", dir.file("a.raw")])
        let bytes = try FFmpegCLI.bytes(of: dir.file("a.raw"))
        let samples = stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        // Count rising zero crossings over the middle second (skipping priming and the fade-out).
        let middle = samples.dropFirst(48_000).prefix(48_000)
        let crossings = zip(middle, middle.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        #expect(abs(crossings - 440) <= 3, "\(crossings) Hz decoded, 440 Hz sent")
    }
}
