import MediaCore
import Synchronization
import Testing
@testable import Pipeline

/// The action before the first frames (`stream`'s and `serve`'s releases of file pages) runs before
/// the encoders get each of them, and never again.
@Suite struct FirstFramesActionTests {
    /// Counts what reaches the encoders' side.
    final class CountingSink: VideoSink {
        let counts = Mutex((frames: 0, discarded: 0))
        func onFrame(_ frame: VideoFrame) { counts.withLock { $0.frames += 1 } }
        func onDiscardedFrame() { counts.withLock { $0.discarded += 1 } }
    }

    @Test(arguments: [1, 2])
    func runsBeforeEachOfTheFirstFramesGoesOn(frames: Int) throws {
        let sink = CountingSink()
        let framesSeenByTheAction = Mutex<[Int]>([])
        let action = FirstFramesAction(next: sink, frames: frames) { framesSeenByTheAction.withLock { $0.append(sink.counts.withLock { $0.frames }) } }
        let buffer = try I420Buffer(width: 16, height: 16)

        action.onDiscardedFrame()
        #expect(framesSeenByTheAction.withLock { $0 }.isEmpty, "a discarded frame is no frame")
        for index in 0..<4 { action.onFrame(VideoFrame(buffer: buffer, captureTimeNanos: Int64(index) * 33_333_333)) }

        #expect(framesSeenByTheAction.withLock { $0 } == Array(0..<frames), "before frame 1, then before frame 2, … and not after")
        #expect(sink.counts.withLock { $0.frames } == 4)
        #expect(sink.counts.withLock { $0.discarded } == 1)
    }
}
