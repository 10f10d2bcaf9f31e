import MediaCore
import Synchronization

/// Runs an action on the capture thread just before each of the first `frames` captured frames
/// goes on to the encoders.
///
/// `livepush stream` and `serve` shed file pages there (`ProcessFootprint.release`), at the two
/// moments of a camera's start when little of what is resident will be touched again:
/// - before the first frame, everything is open (the encoders, the outputs, the source) and nothing
///   has been encoded: what opening touched goes before x264's first frames allocate its buffers
///   (14 MiB at 720p). Done once the pipeline was up instead, on another thread, the release raced
///   those frames, and when x264 won, 30 MiB of file pages and x264's buffers were resident at once;
/// - before the second, the first has been through: an IDR, x264's first allocations and intra
///   paths, each output's header. Left resident until the schedule's release 0.5 s in, those pages
///   (~2 MiB) sat beside all of x264's buffers and made the run's peak (issue 28; BENCHMARKS.md,
///   "Shed again before the second frame").
/// After those frames this costs one atomic load per frame.
final class FirstFramesAction: VideoSink {
    private let next: any VideoSink
    private let frames: Int
    private let action: @Sendable () -> Void
    private let started = Atomic<Int>(0)

    init(next: any VideoSink, frames: Int, action: @escaping @Sendable () -> Void) {
        self.next = next
        self.frames = frames
        self.action = action
    }

    func onFrame(_ frame: VideoFrame) {
        if started.load(ordering: .relaxed) < frames, started.wrappingAdd(1, ordering: .relaxed).newValue <= frames { action() }
        next.onFrame(frame)
    }

    func onDiscardedFrame() { next.onDiscardedFrame() }

    func waitUntilConsumed(deadlineNanos: Int64) { next.waitUntilConsumed(deadlineNanos: deadlineNanos) }
}
