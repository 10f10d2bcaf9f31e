import MediaCore
import Synchronization

/// Ends a run after an exact length of captured media (`livepush stream --duration`): once a
/// length is set, frames captured that long or longer after the first frame reach no encoder, so
/// a 10 s run holds 10 s of pictures however long opening the outputs, a loaded machine or the
/// stop itself take. Until a length is set every frame passes. A source with no more frames (a
/// file played to its end) ends the media too, length or not, until a frame comes again (an
/// on-demand camera's file opened anew).
final class MediaLengthLimit: VideoSink {
    private struct State {
        var firstCaptureNanos: Int64?
        var lengthNanos: Int64?
        var ended = false
        var sourceEnded = false
    }

    private let next: any VideoSink
    private let state = Mutex(State())

    init(next: any VideoSink) { self.next = next }

    /// From now on, frames captured `seconds` or more after the first end the media.
    func end(afterSeconds seconds: Double) {
        state.withLock { $0.lengthNanos = Int64(max(0, seconds) * 1e9) }
    }

    /// A frame past the length has arrived (nothing more goes to the encoders), or the source has no
    /// more frames.
    var ended: Bool { state.withLock { $0.ended || $0.sourceEnded } }

    func onFrame(_ frame: VideoFrame) {
        let passes = state.withLock { state in
            state.sourceEnded = false
            let first = state.firstCaptureNanos ?? frame.captureTimeNanos
            state.firstCaptureNanos = first
            if let length = state.lengthNanos, frame.captureTimeNanos - first >= length { state.ended = true }
            return !state.ended
        }
        if passes { next.onFrame(frame) }
    }

    func onDiscardedFrame() { next.onDiscardedFrame() }

    func onEndOfStream() { state.withLock { $0.sourceEnded = true } }

    func waitUntilConsumed(deadlineNanos: Int64) { next.waitUntilConsumed(deadlineNanos: deadlineNanos) }
}
