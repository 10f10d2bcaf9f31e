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

/// The real `livepush stream` binary.
@Suite(.timeLimit(.minutes(2))) struct StreamCommandTests {
    /// kill -9 mid-recording leaves a file that plays up to its last fragment (≤ 1 s lost).
    @Test func recordingSurvivesSigkill() async throws {
        let dir = try TemporaryDirectory()
        let stream = try BackgroundProcess(try LivepushBinary.path(),
                                           ["stream", "--size", "640x360", "--keyint", "1", "--record", dir.file("live.mp4")])
        #expect(stream.waitUntil(timeoutSeconds: 20) {
            ((try? FileManager.default.attributesOfItem(atPath: dir.file("live.mp4"))[.size] as? Int) ?? 0) > 60_000
        })
        try await Task.sleep(for: .seconds(3))
        stream.kill(signal: SIGKILL)
        #expect(stream.wait(timeoutSeconds: 5) != nil)
        let codes = try StreamPipelineTests.frameCodes(of: dir.file("live.mp4"), width: 640, height: 360)
        #expect(codes.count >= 60, "\(codes.count) frames survived kill -9")
        #expect(codes.allSatisfy { $0 != nil })
    }

    /// SIGTERM stops cleanly: the summary is printed and the file is finalized (has its duration).
    @Test func sigtermFinalizes() async throws {
        let dir = try TemporaryDirectory()
        let stream = try BackgroundProcess(try LivepushBinary.path(), ["stream", "--size", "320x240", "--record", dir.file("out.mp4")])
        #expect(stream.waitUntil(timeoutSeconds: 20) { stream.output.contains("livepush: streaming") })
        try await Task.sleep(for: .seconds(2))
        stream.kill(signal: SIGTERM)
        #expect(stream.wait(timeoutSeconds: 10) == 0)
        #expect(stream.output.contains("livepush: stopped"))
        let probe = try FFmpegCLI.probe(dir.file("out.mp4"))
        let duration = Double((probe["format"] as? [String: Any])?["duration"] as? String ?? "") ?? 0
        #expect(duration > 1.5)
    }

    /// Off a terminal (systemd, a pipe) the status line is printed once every 10 s or on a change of
    /// an output's state, not four times a second: 4 s of a recording stream print it at start and at most
    /// once more, when the recording's state settles (at four a second it would be about 16 lines).
    @Test func statusOffATerminalIsQuiet() throws {
        let dir = try TemporaryDirectory()
        let result = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--size", "320x240", "--duration", "4s",
                                                                       "--record", dir.file("out.mp4")], timeoutSeconds: 60)
        let lines = result.output.split(separator: "\n").filter { $0.contains("uptime") }
        #expect((1...2).contains(lines.count), "status lines: \(lines)")
        #expect(result.output.contains("livepush: stopped"), "\(result.output.suffix(500))")
    }

    /// `livepush encoders` lists only encoders that opened here (libx264 always; no GPU encoders on this machine).
    @Test func encodersListsWhatOpens() throws {
        let result = try ExternalTool.run(try LivepushBinary.path(), ["encoders"], timeoutSeconds: 60)
        let names = result.output.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(names.contains("libx264"))
        #expect(!names.contains("h264_nvenc") && !names.contains("h264_v4l2m2m"), "listed an encoder that cannot open here: \(names)")
        #expect(result.errorOutput.isEmpty, "probing must not spill FFmpeg's errors: \(result.errorOutput.prefix(300))")
    }

    @Test func devicesListAudioInputs() throws {
        let result = try ExternalTool.run(try LivepushBinary.path(), ["devices", "--json"], timeoutSeconds: 30)
        let listing = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        // ALSA always has its `null` PCM; a real microphone would be listed beside it.
        #expect((listing["audioInputs"] as? [String])?.contains("null") == true, "\(listing)")
    }

    @Test func badOptionsAreNamed() throws {
        let result = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--bitrate", "fast", "--record", "/tmp/x.mp4"], check: false)
        #expect(result.status != 0)
        #expect(result.errorOutput.contains("invalid bitrate 'fast'"))
        let none = try ExternalTool.run(try LivepushBinary.path(), ["stream", "--duration", "1s"], check: false)
        #expect(none.status != 0 && none.errorOutput.contains("nothing to stream to"))
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
