import MediaCore
import Synchronization

/// Runs an action once, on the capture thread, just before the first captured frame goes on to the
/// encoders: the one moment when everything is open (the encoders, the outputs, the source) and
/// nothing has been encoded yet.
///
/// `livepush stream` sheds there the file pages opening the pipeline touched
/// (`ProcessFootprint.release`), before x264's first frames allocate its buffers (14 MiB at 720p).
/// Done once the pipeline was up instead, on another thread, the release raced those first frames,
/// and when x264 won, 30 MiB of file pages and x264's buffers were resident at once (issue 28).
/// After the first frame this costs one atomic load per frame.
final class FirstFrameAction: VideoSink {
    private let next: any VideoSink
    private let action: @Sendable () -> Void
    private let ran = Atomic<Bool>(false)

    init(next: any VideoSink, action: @escaping @Sendable () -> Void) {
        self.next = next
        self.action = action
    }

    func onFrame(_ frame: VideoFrame) {
        if !ran.load(ordering: .acquiring), !ran.exchange(true, ordering: .acquiringAndReleasing) { action() }
        next.onFrame(frame)
    }

    func onDiscardedFrame() { next.onDiscardedFrame() }

    func waitUntilConsumed(deadlineNanos: Int64) { next.waitUntilConsumed(deadlineNanos: deadlineNanos) }
}
