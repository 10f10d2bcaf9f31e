import Codec
import Foundation
import MediaCore
import Pipeline
import Synchronization

/// Feeds an output that ``Pipeline/StreamOutput/servesAllRenditions`` the way a camera with several
/// renditions would, until the pipeline does it itself: one moving synthetic picture per frame
/// (``Codec/SyntheticVideo``), scaled to each rendition's size, each with a frame code carrying the
/// wall clock (the player's glass-to-glass latency), encoded by one libx264 encoder per rendition in
/// real time on its own thread, every frame tagged with its rendition. Key frame requests per
/// rendition are honoured at the next frame.
final class RenditionFeeder: Sendable {
    private let renditions: [RenditionDescription]
    private let output: any StreamOutput
    private let keyFrameWanted: Mutex<[Bool]>
    private let running = Atomic<Bool>(true)
    private let finished = Atomic<Bool>(false)
    /// Frames encoded per rendition.
    let framesEncoded: Mutex<[Int]>

    init(renditions: [RenditionDescription], into output: any StreamOutput) {
        self.renditions = renditions
        self.output = output
        keyFrameWanted = Mutex(Array(repeating: false, count: renditions.count))
        framesEncoded = Mutex(Array(repeating: 0, count: renditions.count))
    }

    func requestKeyFrame(_ rendition: Int) {
        keyFrameWanted.withLock { if $0.indices.contains(rendition) { $0[rendition] = true } }
    }

    /// Starts the encode thread; it runs until ``stop()`` or `seconds`.
    func start(seconds: Double) throws {
        // Handed to the encode thread, which alone uses them from then on.
        nonisolated(unsafe) let encoders = try renditions.map { rendition throws(CodecError) in
            try VideoEncoder(settings: VideoEncoderSettings(
                width: rendition.width, height: rendition.height, framesPerSecond: rendition.framesPerSecond,
                // A half-second VBV keeps a key frame within what the test's narrow link queues.
                bitrateBitsPerSecond: rendition.bitrateBitsPerSecond, bufferSizeBits: rendition.bitrateBitsPerSecond / 2,
                keyframeIntervalSeconds: 30, preset: "ultrafast",
                profile: .baseline, threads: 1))
        }
        let top = renditions[0]
        let thread = Thread { [self] in
            run(encoders: encoders, source: SyntheticVideo(width: top.width, height: top.height, framesPerSecond: top.framesPerSecond, fineDetail: true),
                until: Date().addingTimeInterval(seconds))
        }
        thread.start()
    }

    /// Stops the thread and waits (bounded) for it.
    func stop() {
        running.store(false, ordering: .releasing)
        let deadline = Date().addingTimeInterval(3)
        while !finished.load(ordering: .acquiring), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    }

    private func run(encoders: [VideoEncoder], source: SyntheticVideo, until deadline: Date) {
        defer { finished.store(true, ordering: .releasing) }
        let pool = FrameBufferPool(capacity: 4 * renditions.count)
        let interval = 1.0 / Double(renditions[0].framesPerSecond)
        let start = Date()
        var number = 0
        while running.load(ordering: .acquiring), Date() < deadline {
            let due = start.addingTimeInterval(Double(number) * interval)
            if due > Date() { Thread.sleep(until: due) }
            let captureNanos = MonotonicClock.nowNanos()
            let code = FrameCode(frameNumber: UInt32(number), captureTimeNanos: UInt64(captureNanos),
                                 wallClockMillis: UInt64(Date().timeIntervalSince1970 * 1000))
            guard let picture = try? source.frame(number: number) else { number += 1; continue }
            for (index, rendition) in renditions.enumerated() {
                guard let buffer = index == 0 ? picture.buffer : try? pool.makeBuffer(width: rendition.width, height: rendition.height) else { continue }
                if index > 0 { try? picture.buffer.scale(into: buffer) }
                try? code.burn(into: buffer)
                if keyFrameWanted.withLock({ wanted in defer { wanted[index] = false }; return wanted[index] }) { encoders[index].requestKeyFrame() }
                try? encoders[index].encode(VideoFrame(buffer: buffer, captureTimeNanos: captureNanos, frameNumber: UInt64(number))) { encoded in
                    var tagged = encoded
                    tagged.rendition = index
                    framesEncoded.withLock { $0[index] += 1 }
                    output.onEncodedFrame(tagged)
                }
            }
            number += 1
        }
    }
}
