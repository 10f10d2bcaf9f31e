import MediaCore
import Synchronization
import Testing
@testable import Pipeline

/// The action before the first frame (`stream`'s release of opening's file pages) runs once, before
/// the encoders get that frame, and never again.
@Suite struct FirstFrameActionTests {
    /// Counts what reaches the encoders' side.
    final class CountingSink: VideoSink {
        let counts = Mutex((frames: 0, discarded: 0))
        func onFrame(_ frame: VideoFrame) { counts.withLock { $0.frames += 1 } }
        func onDiscardedFrame() { counts.withLock { $0.discarded += 1 } }
    }

    @Test func runsOnceBeforeTheFirstFrameGoesOn() throws {
        let sink = CountingSink()
        let framesSeenByTheAction = Mutex<[Int]>([])
        let action = FirstFrameAction(next: sink) { framesSeenByTheAction.withLock { $0.append(sink.counts.withLock { $0.frames }) } }
        let buffer = try I420Buffer(width: 16, height: 16)

        action.onDiscardedFrame()
        #expect(framesSeenByTheAction.withLock { $0 }.isEmpty, "a discarded frame is no frame")
        for index in 0..<3 { action.onFrame(VideoFrame(buffer: buffer, captureTimeNanos: Int64(index) * 33_333_333)) }

        #expect(framesSeenByTheAction.withLock { $0 } == [0])
        #expect(sink.counts.withLock { $0.frames } == 3)
        #expect(sink.counts.withLock { $0.discarded } == 1)
    }
}
