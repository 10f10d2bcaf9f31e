import Capture
import Codec
import Foundation
import MediaCore
import Pipeline
import Recording
import Testing
import TestSupport

/// How long the drifting run lasts and how far each clock is off: 10 s at 1 % unless the
/// environment asks for the issue's own case.
struct DriftingClocksRun {
    var seconds = 10.0
    var driftPPM = 10_000.0
    /// What was wrong with `LIVEPUSH_DRIFT_RUN`, if it was set and unreadable: the tests fail with it
    /// rather than run the default case in its place.
    var malformed: String?

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let text = environment["LIVEPUSH_DRIFT_RUN"] else { return }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        if parts.count == 2, let seconds = Double(parts[0].dropLast(parts[0].hasSuffix("s") ? 1 : 0)),
           let ppm = Double(parts[1].dropLast(parts[1].hasSuffix("ppm") ? 3 : 0)), seconds >= 5, ppm > 0, seconds.isFinite, ppm < 1e6 {
            (self.seconds, self.driftPPM) = (seconds, ppm)
        } else {
            malformed = "LIVEPUSH_DRIFT_RUN=\(text) is not SECONDSs@PPMppm with at least 5 s and 0 < ppm < 1,000,000 (the issue's case: 600s@1000ppm); unset it for the 10 s case"
        }
    }

    /// Fails the test naming the variable when it was set and unreadable.
    func requireWellFormed() throws {
        if let malformed { throw DriftingClocksRunError(description: malformed) }
    }

    struct DriftingClocksRunError: Error, CustomStringConvertible { let description: String }

    /// Real time, and as long again (at least two minutes) to read the recording back.
    var timeLimitMinutes: Int { 2 * Int((seconds / 60).rounded(.up)) + 2 }
    /// The uncorrected skew the card alone builds up by the end (negative: audio lags).
    var uncorrectedSkew: Double { -driftPPM / 1e6 * seconds }
    /// The range the measured drift must land in once the loop has had 2.5 time constants.
    var driftShown: ClosedRange<Double> { -1.1 * driftPPM ... -0.6 * driftPPM }
}

/// The wiring, in real time: a test pattern 1 % fast and a sound card 1 % slow (ten times the
/// issue's 0.1 % each way, so seconds show what its 10 minutes would) are recorded, and the
/// recording is read back with ffmpeg as a player would: each picture's burned-in capture time
/// against its presentation time places the capture clock on the recording's timeline; the card
/// ticks at each second of capture time, and where each tick plays against where that instant's
/// picture plays is the A/V skew. ``AudioClockSyncTests`` runs the same card for 60 s in simulated time.
///
/// `LIVEPUSH_DRIFT_RUN=600s@1000ppm` runs the same two tests as the issue states them (10 minutes,
/// camera 0.1 % fast, card 0.1 % slow); the bounds below follow from the run's length and drift.
@Suite(.timeLimit(.minutes(DriftingClocksRun().timeLimitMinutes))) struct AudioClockDriftRecordingTests {
    static let size = VideoSize(width: 320, height: 240)

    static func recordDrifting(_ run: DriftingClocksRun, correction: Bool) async throws -> (skews: [Double], status: AudioStatus, videoRate: Double) {
        let seconds = run.seconds
        let dir = try TemporaryDirectory()
        let path = dir.file("drift.mp4")
        let audioStartNanos = MonotonicClock.nowNanos()
        let pipeline = try StreamPipeline(
            capturer: TestPatternCapturer(source: TestPatternSource(driftPPM: run.driftPPM), config: CaptureConfig(size: size)),
            encoderSettings: VideoEncoderSettings(width: size.width, height: size.height, bitrateBitsPerSecond: 300_000, keyframeIntervalSeconds: 1),
            audioSource: try SyntheticAudioSource(signal: .ticks(amplitude: 0.5), driftPPM: -run.driftPPM, startNanos: audioStartNanos),
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

        // Each tick marks a whole second of capture time since the card's start. Which second is the one
        // nearest to where the previous tick's skew predicts it: past half a second of skew (10 minutes
        // uncorrected) the nearest second alone would name the wrong tick.
        let start = Double(audioStartNanos) / 1e9
        var previousSkew = 0.0
        let skews = try tickPlayTimes(path, dir: dir).map { played in
            let captured = start + (played - offset - previousSkew - start).rounded()
            previousSkew = played - (captured + offset)
            return previousSkew
        }
        // The camera's own rate, from the codes: frames it numbered over the capture time they span
        // (frames the encoder dropped on a loaded machine leave gaps in the numbers, not in this rate).
        let read = codes.compactMap { $0 }
        let videoRate = try #require(read.first.flatMap { first in read.last.map { last in
            Double(last.frameNumber - first.frameNumber) / (Double(last.captureTimeNanos - first.captureTimeNanos) / 1e9)
        } }, "no frame code read")
        let every = max(1, skews.count / 10)
        print("A/V skew, \(run.seconds) s at \(run.driftPPM) ppm, correction \(correction ? "on" : "off"): worst \(((skews.map(abs).max() ?? 0) * 1e3).rounded()) ms; "
              + "every \(every) s (ms): \(stride(from: every - 1, to: skews.count, by: every).map { Int((skews[$0] * 1e3).rounded()) }); "
              + "status skew \(status.clockSkewMillis) ms, drift \(status.clockDriftPPM) ppm; video \(videoRate) fps")
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
        let run = DriftingClocksRun()
        try run.requireWellFormed()
        let (skews, status, videoRate) = try await Self.recordDrifting(run, correction: true)
        #expect(Double(skews.count) >= run.seconds * 0.8, "ticks read back: \(skews.count)")
        let worst = skews.map(abs).max() ?? .infinity
        #expect(worst < 0.040, "worst A/V skew \(worst * 1e3) ms: \(skews.map { Int(($0 * 1e3).rounded()) })")
        // After 10 s (2.5 time constants) the loop's integral has reached 1 − 3.5·ℯ^−2.5 = 71 % of the drift.
        #expect(run.driftShown.contains(status.clockDriftPPM), "drift shown: \(status.clockDriftPPM) ppm")
        #expect(abs(status.clockSkewMillis) < 20, "skew shown: \(status.clockSkewMillis) ms")
        let fastRate = 30 * (1 + run.driftPPM / 1e6)
        #expect(abs(videoRate - fastRate) < 0.3 * (fastRate - 30), "the camera runs \(run.driftPPM) ppm fast: \(videoRate) fps, not \(fastRate)")
    }

    /// The same run with `clock_correction: off`: the ticks fall behind by the card's drift (10 ms
    /// every second at 1 %), at least 70 % of the way to what the drift builds up by the end.
    @Test func withoutCorrectionTheRecordingDriftsApart() async throws {
        let run = DriftingClocksRun()
        try run.requireWellFormed()
        let (skews, status, _) = try await Self.recordDrifting(run, correction: false)
        let last = try #require(skews.last)
        let bound = 0.7 * run.uncorrectedSkew
        #expect(Double(skews.count) >= run.seconds * 0.8 && last < bound, "uncorrected A/V skew at the last tick: \(last * 1e3) ms, \(skews.count) ticks")
        #expect(status.clockSkewMillis < bound * 1e3, "skew shown: \(status.clockSkewMillis) ms")
        #expect(run.driftShown.contains(status.clockDriftPPM), "drift still measured: \(status.clockDriftPPM) ppm")
    }
}
