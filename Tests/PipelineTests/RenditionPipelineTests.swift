import Capture
import Codec
import Foundation
import MediaCore
import Output
import Pipeline
import Recording
import Synchronization
import Testing
import TestSupport

/// One capture, several renditions: each output gets its rendition's frames at its size, outputs
/// that serve all get every rendition tagged, and a stuck rendition drops on its own.
@Suite(.timeLimit(.minutes(2))) struct RenditionPipelineTests {
    static let captureSize = VideoSize(width: 640, height: 360)

    static func rendition(_ name: String, _ width: Int, _ height: Int, fps: Int = 30, bitrate: Int) -> StreamPipeline.Rendition {
        let settings = VideoEncoderSettings(width: width, height: height, framesPerSecond: fps, bitrateBitsPerSecond: bitrate,
                                            keyframeIntervalSeconds: 1, preset: "ultrafast")
        return StreamPipeline.Rendition(description: RenditionDescription(name: name, width: width, height: height, framesPerSecond: fps,
                                                                          bitrateBitsPerSecond: bitrate),
                                        settings: settings, maximumFramesPerSecond: fps < 30 ? Double(fps) : nil)
    }

    static func capturer() -> TestPatternCapturer {
        TestPatternCapturer(source: TestPatternSource(), config: CaptureConfig(size: captureSize, framesPerSecond: 30),
                            poolCapacity: StreamPipeline.capturePoolCapacity(renditions: 2))
    }

    /// Two renditions into two recordings and one output that serves all: each recording has its
    /// rendition's size with every frame's code readable and in order; the 15 fps rendition was
    /// thinned; the serve-all output learned both renditions before start and got frames of each.
    @Test func eachOutputGetsItsRendition() async throws {
        let dir = try TemporaryDirectory()
        let top = RecordingOutput(settings: RecordingSettings(path: dir.file("top.mp4")))
        let low = RecordingOutput(settings: RecordingSettings(path: dir.file("low.mp4")))
        let all = AllRenditionsOutput()
        let pipeline = try StreamPipeline(capturer: Self.capturer(),
                                          renditions: [Self.rendition("top", 640, 360, bitrate: 800_000), Self.rendition("low", 320, 180, fps: 15, bitrate: 200_000)],
                                          outputs: [(top, 0), (low, 1), (all, 0)])
        _ = try await pipeline.start()
        #expect(all.renditionsAtStart == pipeline.renditions, "the start context had the renditions")
        #expect(pipeline.status.renditions.count == 2)
        for _ in 0..<100 where (pipeline.status.renditions.last?.encoder.encoded ?? 0) < 30 { try await Task.sleep(for: .milliseconds(100)) }
        await pipeline.stop()
        let status = pipeline.status
        let (topStatus, lowStatus) = (status.renditions[0], status.renditions[1])
        #expect(lowStatus.encoder.encoded >= 30)
        #expect(lowStatus.framesThinned > 0 && topStatus.framesThinned == 0, "only the 15 fps rendition is thinned")
        #expect(lowStatus.encoder.encoded < topStatus.encoder.encoded)
        #expect(topStatus.outputs == [top.name, all.name] && lowStatus.outputs == [low.name, all.name])
        #expect(status.captureDropped == 0, "the capture pool holds both renditions' queues")
        for (path, size, encoded) in [(dir.file("top.mp4"), (640, 360), topStatus.encoder.encoded), (dir.file("low.mp4"), (320, 180), lowStatus.encoder.encoded)] {
            let streams = try #require(try FFmpegCLI.probe(path)["streams"] as? [[String: Any]])
            #expect(streams.first?["width"] as? Int == size.0 && streams.first?["height"] as? Int == size.1, "\(path): \(streams)")
            let codes = try RecordedFrameCodes.read(path, width: size.0, height: size.1)
            let numbers = codes.compactMap { $0?.frameNumber }
            #expect(codes.count == encoded && numbers.count == codes.count, "\(path): \(numbers.count) readable codes of \(codes.count), \(encoded) encoded")
            #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 }, "\(path): frames in capture order")
        }
        let counts = all.framesByRendition
        #expect(counts[0] == topStatus.encoder.encoded && counts[1] == lowStatus.encoder.encoded, "serve-all output got \(counts)")
    }

    /// Multitrack RTMP sends renditions as tracks a server switches viewers between at keyframes: with one
    /// keyframe interval and one frame rate, every rendition's keyframes fall on the same capture times,
    /// (placed by capture time before the encoders: ``KeyFrameSchedule``).
    @Test func renditionsWithOneKeyframeIntervalHaveKeyframesOnTheSameCaptureTimes() async throws {
        let all = AllRenditionsOutput()
        let pipeline = try StreamPipeline(capturer: Self.capturer(),
                                          renditions: [Self.rendition("top", 320, 180, bitrate: 300_000), Self.rendition("low", 160, 90, bitrate: 100_000)],
                                          outputs: [(all, 0)])
        _ = try await pipeline.start()
        for _ in 0..<100 where (pipeline.status.renditions.map(\.encoder.encoded).min() ?? 0) < 75 { try await Task.sleep(for: .milliseconds(100)) }
        await pipeline.stop()
        let status = pipeline.status
        #expect(status.renditions.allSatisfy { $0.encoder.dropped == 0 } && status.captureDropped == 0, "\(status.renditions)")
        let keys = all.keyFrameCaptureNanos
        // the same capture times up to the last frame both encoded
        let end = min(all.lastCaptureNanos[0] ?? 0, all.lastCaptureNanos[1] ?? 0)
        let (top, low) = ((keys[0] ?? []).filter { $0 <= end }, (keys[1] ?? []).filter { $0 <= end })
        #expect(top.count >= 2 && top == low, "keyframe capture times: top \(top), low \(low)")
    }

    /// Keyframes are placed by capture time before the encoders' queues: a rendition whose encoder falls
    /// behind now and then (its output holds the encoder thread 250 ms every 20 frames, so its queue drops)
    /// still keys the same captured frames as the other. Counted in frames, its keyframes would slip.
    @Test func renditionsKeyTheSameCaptureTimesWhenOneDropsFrames() async throws {
        let all = AllRenditionsOutput()
        let slow = StallingOutput()
        let pipeline = try StreamPipeline(capturer: Self.capturer(),
                                          renditions: [Self.rendition("top", 320, 180, bitrate: 300_000), Self.rendition("low", 160, 90, bitrate: 100_000)],
                                          outputs: [(all, 0), (slow, 1)])
        _ = try await pipeline.start()
        for _ in 0..<150 where (pipeline.status.renditions.map(\.encoder.encoded).min() ?? 0) < 100 { try await Task.sleep(for: .milliseconds(100)) }
        await pipeline.stop()
        let status = pipeline.status
        #expect(status.renditions[1].encoder.dropped > 0, "the slow rendition dropped frames: \(status.renditions[1].encoder)")
        let keys = all.keyFrameCaptureNanos
        let end = min(all.lastCaptureNanos[0] ?? 0, all.lastCaptureNanos[1] ?? 0)
        let (top, low) = ((keys[0] ?? []).filter { $0 <= end }, (keys[1] ?? []).filter { $0 <= end })
        #expect(top.count >= 3 && top == low, "keyframe capture times: top \(top), low \(low)")
    }

    /// A rendition whose output blocks its encoder thread drops at its own queue; the other
    /// rendition keeps encoding, and the capture drops nothing.
    @Test func aStuckRenditionDropsAloneAndTheOtherCarriesOn() async throws {
        let stuck = BlockingOutput()
        let free = AllRenditionsOutput(servesAll: false)
        let pipeline = try StreamPipeline(capturer: Self.capturer(),
                                          renditions: [Self.rendition("top", 640, 360, bitrate: 800_000), Self.rendition("low", 320, 180, bitrate: 200_000)],
                                          outputs: [(stuck, 0), (free, 1)])
        _ = try await pipeline.start()
        defer { stuck.release() }
        for _ in 0..<200 where pipeline.status.renditions[1].encoder.encoded < 60 || pipeline.status.renditions[0].encoder.dropped < 30 {
            try await Task.sleep(for: .milliseconds(100))
        }
        let status = pipeline.status
        stuck.release()
        await pipeline.stop()
        #expect(status.renditions[1].encoder.encoded >= 60, "the free rendition encoded \(status.renditions[1].encoder.encoded)")
        #expect(status.renditions[0].encoder.encoded <= 1, "the stuck rendition's encoder waits in its output")
        #expect(status.renditions[0].encoder.dropped >= 30, "the stuck rendition counts its drops: \(status.renditions[0].encoder)")
        #expect(status.renditions[1].encoder.dropped < status.renditions[0].encoder.dropped)
        #expect(status.captureDropped == 0, "a stuck rendition does not starve the capture pool")
        #expect((free.framesByRendition[1] ?? 0) >= status.renditions[1].encoder.encoded, "the free rendition's output got its frames, tagged 1")
    }
}

/// Counts frames per rendition; as a serve-all output, records the renditions it was told.
private final class AllRenditionsOutput: StreamOutput, @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [Int: Int] = [:]
    private var keyFrames: [Int: [Int64]] = [:]
    private var lastCapture: [Int: Int64] = [:]
    private var atStart: [RenditionDescription]?
    let servesAllRenditions: Bool

    init(servesAll: Bool = true) { servesAllRenditions = servesAll }

    var name: String { servesAllRenditions ? "all" : "counter" }
    func start(_ context: OutputStartContext) async throws { lock.withLock { atStart = context.renditions?.list } }
    func stop() async {}
    func onEncodedFrame(_ frame: EncodedVideoFrame) {
        lock.withLock {
            counts[frame.rendition, default: 0] += 1
            lastCapture[frame.rendition] = frame.ptsNanos
            if frame.isKeyFrame { keyFrames[frame.rendition, default: []].append(frame.ptsNanos) }
        }
    }
    func onEncoderError(_ error: CodecError) {}
    var status: OutputStatus { OutputStatus(state: .running) }
    var framesByRendition: [Int: Int] { lock.withLock { counts } }
    /// Each rendition's keyframes' capture times, in order.
    var keyFrameCaptureNanos: [Int: [Int64]] { lock.withLock { keyFrames } }
    var lastCaptureNanos: [Int: Int64] { lock.withLock { lastCapture } }
    var renditionsAtStart: [RenditionDescription]? { lock.withLock { atStart } }
}

/// Holds the encoder thread in `onEncodedFrame` until released (at most 30 s, so a failing test still ends).
private final class BlockingOutput: StreamOutput, @unchecked Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let released = Mutex(false)

    var name: String { "stuck" }
    func start(_ context: OutputStartContext) async throws {}
    func stop() async {}
    func onEncodedFrame(_ frame: EncodedVideoFrame) {
        guard !released.withLock({ $0 }) else { return }
        _ = gate.wait(timeout: .now() + 30)
    }
    func onEncoderError(_ error: CodecError) {}
    var status: OutputStatus { OutputStatus(state: .running) }

    func release() {
        let first = released.withLock { done in
            defer { done = true }
            return !done
        }
        if first { gate.signal() }
    }
}

/// Holds the encoder thread 250 ms on every 20th frame, so the rendition's queue overflows now and then.
private final class StallingOutput: StreamOutput, @unchecked Sendable {
    private let count = Mutex(0)

    var name: String { "slow" }
    func start(_ context: OutputStartContext) async throws {}
    func stop() async {}
    func onEncodedFrame(_ frame: EncodedVideoFrame) {
        let number = count.withLock { count in
            defer { count += 1 }
            return count
        }
        if number % 20 == 19 { usleep(250_000) }
    }
    func onEncoderError(_ error: CodecError) {}
    var status: OutputStatus { OutputStatus(state: .running) }
}
