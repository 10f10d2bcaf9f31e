import Foundation
import Synchronization
import Testing
import MediaCore
@testable import Codec

final class CollectingSink: EncodedVideoSink {
    let frames = Mutex<[EncodedVideoFrame]>([])
    let errors = Mutex<[CodecError]>([])
    /// How long each encoded frame keeps the encoder thread (0: none).
    let delayMicroseconds: UInt32
    init(delayMicroseconds: UInt32 = 0) { self.delayMicroseconds = delayMicroseconds }
    func onEncodedFrame(_ frame: EncodedVideoFrame) {
        if delayMicroseconds > 0 { usleep(delayMicroseconds) }
        frames.withLock { $0.append(frame) }
    }
    func onEncoderError(_ error: CodecError) { errors.withLock { $0.append(error) } }
}

@Suite struct EncoderQueueTests {
    @Test func dropsBeforeEncodingWhenTheEncoderFallsBehind() throws {
        let sink = CollectingSink()
        let queue = try EncoderQueue(settings: VideoEncoderSettings(width: 640, height: 360, bitrateBitsPerSecond: 800_000),
                                     capacity: 2, sink: sink)
        let video = SyntheticVideo(width: 640, height: 360, poolCapacity: 64)
        // 60 frames at once: far faster than any encoder, so most must be dropped, not queued.
        for number in 0..<60 { queue.submit(try #require(try video.frame(number: number))) }
        queue.finish()
        let stats = queue.statistics
        #expect(stats.submitted == 60)
        #expect(stats.dropped > 0)
        #expect(stats.encoded + stats.dropped == 60)
        #expect(sink.frames.withLock { $0.count } == stats.encoded)
        #expect(sink.errors.withLock { $0.isEmpty })
        // Whatever got through is in capture order.
        let pts = sink.frames.withLock { $0.map(\.ptsNanos) }
        #expect(pts == pts.sorted())
    }

    @Test func keyFrameRequestAppliesToTheNextQueuedFrame() throws {
        let sink = CollectingSink()
        let queue = try EncoderQueue(settings: VideoEncoderSettings(width: 320, height: 240, bitrateBitsPerSecond: 300_000),
                                     capacity: 8, sink: sink)
        let video = SyntheticVideo(width: 320, height: 240, poolCapacity: 16)
        for number in 0..<10 {
            // One frame in flight at a time, so the request lands between frames 4 and 5.
            while queue.statistics.encoded < number { usleep(1000) }
            if number == 5 { queue.requestKeyFrame() }
            queue.submit(try #require(try video.frame(number: number)))
        }
        queue.finish()
        let keys = sink.frames.withLock { frames in frames.indices.filter { frames[$0].isKeyFrame } }
        #expect(queue.droppedFrames == 0)
        #expect(keys == [0, 5])
    }

    /// A keyframe asked for a capture time lands on the first frame captured from then on, however many
    /// frames the encoder still has before it: renditions asked with one time key the same captured frame.
    @Test func keyFrameRequestForACaptureTimeLandsOnThatFrame() throws {
        let sink = CollectingSink()
        let queue = try EncoderQueue(settings: VideoEncoderSettings(width: 320, height: 240, bitrateBitsPerSecond: 300_000),
                                     capacity: 16, sink: sink)
        let video = SyntheticVideo(width: 320, height: 240, poolCapacity: 16)
        let frames = try (0..<10).map { try #require(try video.frame(number: $0)) }
        queue.requestKeyFrame(capturedFrom: frames[6].captureTimeNanos - 1)
        for frame in frames { queue.submit(frame) }
        queue.finish()
        let keys = sink.frames.withLock { frames in frames.indices.filter { frames[$0].isKeyFrame } }
        #expect(queue.droppedFrames == 0)
        #expect(keys == [0, 6])
    }

    /// The switch to turning pixels comes from another thread and lands between two frames, with an IDR.
    @Test func rotatePixelsAppliesToTheNextQueuedFrame() throws {
        let sink = CollectingSink()
        let queue = try EncoderQueue(settings: VideoEncoderSettings(width: 320, height: 240, bitrateBitsPerSecond: 300_000, rotation: .passThrough),
                                     capacity: 8, sink: sink)
        let video = SyntheticVideo(width: 320, height: 240, poolCapacity: 16)
        for number in 0..<6 {
            while queue.statistics.encoded < number { usleep(1000) }
            if number == 4 { queue.rotatePixels() }
            queue.submit(try #require(try video.frame(number: number, rotation: .clockwise90)))
        }
        queue.finish()
        let frames = sink.frames.withLock { $0 }
        #expect(frames.map(\.rotation) == [.clockwise90, .clockwise90, .clockwise90, .clockwise90, .none, .none])
        #expect(frames.indices.filter { frames[$0].isKeyFrame } == [0, 4])
    }

    /// A frame submitted as a keyframe to a full queue is never the one dropped: it takes the newest
    /// waiting frame's place, so renditions keyed by one schedule key the same captured frames.
    @Test func aKeyFrameMeetingAFullQueueDisplacesTheNewestWaitingFrame() throws {
        let sink = StallingSink()
        var settings = VideoEncoderSettings(width: 320, height: 240, bitrateBitsPerSecond: 300_000, preset: "ultrafast")
        settings.keyFrameCadence = .requested
        let queue = try EncoderQueue(settings: settings, capacity: 3, sink: sink)
        let video = SyntheticVideo(width: 320, height: 240, poolCapacity: 16)
        let frames = try (0..<7).map { try #require(try video.frame(number: $0)) }
        queue.submit(frames[0])
        try #require(sink.waitUntilStalled(), "the encoder thread reached the sink with frame 0")
        #expect(queue.submit(frames[1]) && queue.submit(frames[2]) && queue.submit(frames[3]), "room for three")
        #expect(queue.submit(frames[4], keyFrame: true), "the keyframe displaces frame 3")
        #expect(!queue.submit(frames[5]), "full of frames 1, 2 and the keyframe")
        #expect(queue.submit(frames[6], keyFrame: true), "the keyframe displaces frame 2")
        sink.release()
        queue.finish()
        let encoded = sink.frames.withLock { $0 }
        #expect(encoded.map(\.ptsNanos) == [0, 1, 4, 6].map { frames[$0].captureTimeNanos })
        #expect(encoded.map(\.isKeyFrame) == [true, false, true, true])
        #expect(queue.statistics.dropped == 3 && queue.statistics.encoded == 4, "\(queue.statistics)")
    }

    /// A source running ahead of its clock submits a frame, then waits until it is encoded: the wait
    /// ends with the frame's buffer let go, so a pool of one buffer feeds every frame and none is
    /// dropped, however fast they come.
    @Test func waitingUntilEncodedFreesTheBufferForTheNextFrame() throws {
        // Slow to take each encoded frame, so the encoder thread holds each captured one a while.
        let sink = CollectingSink(delayMicroseconds: 5_000)
        let queue = try EncoderQueue(settings: VideoEncoderSettings(width: 320, height: 240, bitrateBitsPerSecond: 300_000, preset: "ultrafast"),
                                     capacity: 1, sink: sink)
        let video = SyntheticVideo(width: 320, height: 240, poolCapacity: 1)
        for number in 0..<30 {
            let frame = try #require(try video.frame(number: number), "frame \(number): the frame before still holds the only buffer")
            #expect(queue.submit(frame))
            queue.waitUntilEncoded(deadlineNanos: MonotonicClock.nowNanos() + 10_000_000_000)
            #expect(queue.statistics.encoded == number + 1)
        }
        queue.finish()
        #expect(queue.droppedFrames == 0)
        #expect(sink.frames.withLock { $0.count } == 30)
    }

    /// An encoder held up (its sink blocks) does not hold the waiting source past the deadline.
    @Test func waitingUntilEncodedEndsAtTheDeadline() throws {
        let sink = StallingSink()
        let queue = try EncoderQueue(settings: VideoEncoderSettings(width: 320, height: 240, bitrateBitsPerSecond: 300_000, preset: "ultrafast"),
                                     capacity: 3, sink: sink)
        let video = SyntheticVideo(width: 320, height: 240, poolCapacity: 4)
        queue.submit(try #require(try video.frame(number: 0)))
        try #require(sink.waitUntilStalled(), "the encoder thread reached the sink with frame 0")
        let deadline = MonotonicClock.nowNanos() + 50_000_000
        queue.waitUntilEncoded(deadlineNanos: deadline)
        #expect(MonotonicClock.nowNanos() >= deadline)
        #expect(queue.statistics.encoded == 0, "the frame is still in the encoder")
        sink.release()
        queue.finish()
        #expect(queue.statistics.encoded == 1)
    }

    /// With keyframes on request, the encoder's own GOP counter places none: 90 frames at keyint 1 s (30 fps)
    /// give the first keyframe and the requested one only.
    @Test(arguments: ["libx264", "libx265"])
    func keyFramesOnRequestOnlyComeWhereAsked(encoderName: String) throws {
        try #require(VideoEncoder.availableEncoders().contains { $0.name == encoderName })
        let sink = CollectingSink()
        var settings = VideoEncoderSettings(encoderName: encoderName, width: 320, height: 240, bitrateBitsPerSecond: 300_000,
                                            keyframeIntervalSeconds: 1, preset: "ultrafast")
        settings.keyFrameCadence = .requested
        let queue = try EncoderQueue(settings: settings, capacity: 100, sink: sink)
        let video = SyntheticVideo(width: 320, height: 240, poolCapacity: 100)
        for number in 0..<90 { queue.submit(try #require(try video.frame(number: number)), keyFrame: number == 40) }
        queue.finish()
        let keys = sink.frames.withLock { frames in frames.indices.filter { frames[$0].isKeyFrame } }
        #expect(queue.droppedFrames == 0)
        #expect(keys == [0, 40])
    }

    /// SVT-AV1 keys only by its own count; with keyframes on request and frames missing before a requested
    /// keyframe (dropped upstream), it is reopened there, so its keyframes stay on the requested frames.
    @Test func anEncoderKeyingByCountIsReopenedForARequestedKeyFrameItWouldMiss() throws {
        try #require(VideoEncoder.availableEncoders().contains { $0.name == "libsvtav1" })
        let sink = CollectingSink()
        var settings = VideoEncoderSettings(encoderName: "libsvtav1", width: 320, height: 240, bitrateBitsPerSecond: 300_000,
                                            keyframeIntervalSeconds: 1, preset: "ultrafast")
        settings.keyFrameCadence = .requested
        let queue = try EncoderQueue(settings: settings, capacity: 100, sink: sink)
        let video = SyntheticVideo(width: 320, height: 240, poolCapacity: 100)
        var numbers: [Int64: Int] = [:]
        for number in 0..<95 where !(10..<13).contains(number) {
            let frame = try #require(try video.frame(number: number))
            numbers[frame.captureTimeNanos] = number
            queue.submit(frame, keyFrame: number % 30 == 0)
        }
        queue.finish()
        let keys = sink.frames.withLock { $0.filter(\.isKeyFrame).compactMap { numbers[$0.ptsNanos] } }
        #expect(queue.droppedFrames == 0 && sink.frames.withLock(\.count) == 92)
        #expect(keys == [0, 30, 60, 90])
    }

    /// Three SVT-AV1 renditions keyed on request, as in a multitrack stream: each keyframe it would miss
    /// reopens it, on three threads at once. SVT-AV1 1.4 corrupted the heap when its instances opened and
    /// closed concurrently ("corrupted size vs. prev_size", "double free or corruption": every run of
    /// five rounds crashed here), so encoders open and close one at a time (``EncoderLifecycle``).
    @Test(arguments: 1...5) func keyFramesRequestedOfSVTAV1EncodersRunningTogetherAreSafe(round: Int) throws {
        try #require(VideoEncoder.availableEncoders().contains { $0.name == "libsvtav1" })
        let sizes = [(480, 270), (320, 180), (160, 90)]
        let sinks = sizes.map { _ in CollectingSink() }
        let queues = try zip(sizes, sinks).map { size, sink in
            var settings = VideoEncoderSettings(encoderName: "libsvtav1", width: size.0, height: size.1, bitrateBitsPerSecond: 300_000,
                                                keyframeIntervalSeconds: 1, preset: "ultrafast")
            settings.keyFrameCadence = .requested
            return try EncoderQueue(settings: settings, capacity: 100, sink: sink)
        }
        let videos = sizes.map { SyntheticVideo(width: $0.0, height: $0.1, poolCapacity: 100) }
        for number in 0..<90 {
            for (queue, video) in zip(queues, videos) { queue.submit(try #require(try video.frame(number: number)), keyFrame: number % 10 == 5) }
        }
        for queue in queues { queue.finish() }
        for (queue, sink) in zip(queues, sinks) {
            #expect(queue.droppedFrames == 0 && sink.frames.withLock(\.count) == 90 && sink.errors.withLock(\.isEmpty))
            #expect(sink.frames.withLock { frames in frames.indices.filter { frames[$0].isKeyFrame } } == [0] + Array(stride(from: 5, to: 90, by: 10)))
        }
    }
}

/// Collects frames; holds the encoder thread in the first one until released (at most 30 s).
private final class StallingSink: EncodedVideoSink {
    let frames = Mutex<[EncodedVideoFrame]>([])
    private let stalled = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)

    func onEncodedFrame(_ frame: EncodedVideoFrame) {
        let first = frames.withLock { frames in
            frames.append(frame)
            return frames.count == 1
        }
        guard first else { return }
        stalled.signal()
        _ = gate.wait(timeout: .now() + 30)
    }
    func onEncoderError(_ error: CodecError) {}
    func waitUntilStalled() -> Bool { stalled.wait(timeout: .now() + 30) == .success }
    func release() { gate.signal() }
}
