import Capture
import Codec
import MediaCore
import Pipeline
import Recording
import Testing
import TestSupport

/// The wiring, in real time: a test pattern 1 % fast and a sound card 1 % slow (ten times the
/// issue's 0.1 % each way, so seconds show what its 10 minutes would) are recorded, and the
/// recording is read back with ffmpeg as a player would: each picture's burned-in capture time
/// against its presentation time places the capture clock on the recording's timeline; the card
/// ticks at each second of capture time, and where each tick plays against where that instant's
/// picture plays is the A/V skew. ``AudioClockSyncTests`` runs the same card for 60 s in simulated time.
extension AudioPipelineTests {
    static let size = VideoSize(width: 320, height: 240)

    static func recordDrifting(seconds: Double, correction: Bool) async throws -> (skews: [Double], status: AudioStatus, videoRate: Double) {
        let dir = try TemporaryDirectory()
        let path = dir.file("drift.mp4")
        let audioStartNanos = MonotonicClock.nowNanos()
        let pipeline = try StreamPipeline(
            capturer: TestPatternCapturer(source: TestPatternSource(driftPPM: 10_000), config: CaptureConfig(size: size)),
            encoderSettings: VideoEncoderSettings(width: size.width, height: size.height, bitrateBitsPerSecond: 300_000, keyframeIntervalSeconds: 1),
            audioSource: try SyntheticAudioSource(signal: .ticks(amplitude: 0.5), driftPPM: -10_000, startNanos: audioStartNanos),
            outputs: [RecordingOutput(settings: RecordingSettings(path: path))], audioClockCorrection: correction)
        _ = try await pipeline.start()
        try await Task.sleep(for: .seconds(seconds))
        let status = try #require(pipeline.status.audio)
        await pipeline.stop()

        // The capture clock on the recording's timeline: presentation time minus burned-in capture time.
        let codes = try FrameCodeReadBack.codes(of: path, width: size.width, height: size.height)
        let pictureTimes = try FFmpegCLI.packetTimes(path, stream: "v:0").sorted()
        let offsets = zip(codes, pictureTimes).compactMap { code, time in code.map { time - Double($0.captureTimeNanos) / 1e9 } }.sorted()
        let offset = try #require(offsets.isEmpty ? nil : offsets[offsets.count / 2])
        #expect((offsets.last ?? 0) - (offsets.first ?? 0) < 0.001, "every picture on one timeline: \(offsets.first ?? 0)…\(offsets.last ?? 0)")

        let ticks = try tickPlayTimes(path, dir: dir)
        let skews = ticks.map { played in
            let captured = Double(audioStartNanos) / 1e9 + ((played - offset - Double(audioStartNanos) / 1e9)).rounded()
            return played - (captured + offset)
        }
        let videoRate = Double(pictureTimes.count - 1) / ((pictureTimes.last ?? 0) - (pictureTimes.first ?? 0))
        return (skews, status, videoRate)
    }

    /// When each tick plays: its decoded sample's place in its decoded frame, from that frame's time.
    static func tickPlayTimes(_ path: String, dir: TemporaryDirectory) throws -> [Double] {
        try FFmpegCLI.ffmpeg(["-i", path, "-vn", "-ac", "1", "-f", "s16le", dir.file("a.raw")])
        let bytes = try FFmpegCLI.bytes(of: dir.file("a.raw"))
        let samples = stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        let csv = try ExternalTool.run("ffprobe", ["-v", "error", "-select_streams", "a:0", "-show_entries", "frame=pts_time,nb_samples",
                                                   "-of", "csv=p=0", path], timeoutSeconds: 60).output
        var frames: [(time: Double, firstSample: Int)] = [], next = 0
        for line in csv.split(separator: "\n") {
            let fields = line.split(separator: ",")
            guard fields.count == 2, let time = Double(fields[0]), let count = Int(fields[1]) else { continue }
            frames.append((time, next))
            next += count
        }
        return AudioClockSyncTests.tickStarts(samples, channels: 1, threshold: 4_000).compactMap { sample in
            frames.last { $0.firstSample <= sample }.map { $0.time + Double(sample - $0.firstSample) / Double(AudioClockSyncTests.rate) }
        }
    }

    @Test func driftingClocksStayTogetherInTheRecording() async throws {
        let (skews, status, videoRate) = try await Self.recordDrifting(seconds: 10, correction: true)
        #expect(skews.count >= 8, "ticks read back: \(skews.count)")
        let worst = skews.map(abs).max() ?? .infinity
        #expect(worst < 0.040, "worst A/V skew \(worst * 1e3) ms: \(skews.map { Int(($0 * 1e3).rounded()) })")
        // After 10 s (2.5 time constants) the loop's integral has reached 1 − 3.5·ℯ^−2.5 = 71 % of the drift.
        #expect((-11_000 ... -6_000).contains(status.clockDriftPPM), "drift shown: \(status.clockDriftPPM) ppm")
        #expect(abs(status.clockSkewMillis) < 20, "skew shown: \(status.clockSkewMillis) ms")
        #expect(abs(videoRate - 30.3) < 0.15, "the camera runs 1 % fast: \(videoRate) fps")
    }

    /// The same run with `clock_correction: off`: the ticks fall 10 ms further behind every second.
    @Test func withoutCorrectionTheRecordingDriftsApart() async throws {
        let (skews, status, _) = try await Self.recordDrifting(seconds: 10, correction: false)
        let last = try #require(skews.last)
        #expect(skews.count >= 8 && last < -0.070, "uncorrected A/V skew at the last tick: \(last * 1e3) ms, \(skews.count) ticks")
        #expect(status.clockSkewMillis < -70, "skew shown: \(status.clockSkewMillis) ms")
        #expect((-11_000 ... -6_000).contains(status.clockDriftPPM), "drift still measured: \(status.clockDriftPPM) ppm")
    }
}
