import MediaCore
import Synchronization

/// A sink that checks what `run --json-events` reports: capture timestamps never go backwards
/// (also across camera switches and re-opens), and a burned-in ``FrameCode`` (test pattern,
/// simulated camera) carries the same capture time as the frame — end-to-end proof that the
/// driver timestamp was used. Forwards every frame to the next sink.
public final class FrameOrderCheck: VideoSink {
    public struct Counts {
        public var frames = 0
        public var discarded = 0
        public var lastFrameNumber: UInt64?
        public var lastCaptureTimeNanos: Int64?
        public var timestampRegressions = 0
        public var codesRead = 0
        public var codeMismatches = 0
        public var width = 0
        public var height = 0
    }
    private let counts = Mutex(Counts())
    private let next: any VideoSink

    public init(forwardingTo next: any VideoSink) { self.next = next }

    public func onFrame(_ frame: VideoFrame) {
        let code = FrameCode.read(from: frame.buffer)
        counts.withLock { counts in
            counts.frames += 1
            if let last = counts.lastCaptureTimeNanos, frame.captureTimeNanos <= last { counts.timestampRegressions += 1 }
            counts.lastCaptureTimeNanos = frame.captureTimeNanos
            counts.lastFrameNumber = frame.frameNumber
            counts.width = frame.width
            counts.height = frame.height
            if let code {
                counts.codesRead += 1
                if code.captureTimeNanos != UInt64(clamping: frame.captureTimeNanos) { counts.codeMismatches += 1 }
            }
        }
        next.onFrame(frame)
    }

    public func onDiscardedFrame() {
        counts.withLock { $0.discarded += 1 }
        next.onDiscardedFrame()
    }

    public func onEndOfStream() { next.onEndOfStream() }

    public func waitUntilConsumed(deadlineNanos: Int64) { next.waitUntilConsumed(deadlineNanos: deadlineNanos) }

    public var current: Counts { counts.withLock { $0 } }
}
