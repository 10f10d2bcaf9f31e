import MediaCore
import Synchronization

/// Counts frames and keeps the latest one, for the status line and periodic snapshots.
public final class FrameMonitor: VideoSink {
    public struct Stats {
        public var frames = 0
        public var framesPerSecond = 0.0
        public var lastCode: FrameCode?
    }
    private struct State {
        var stats = Stats()
        var latest: VideoFrame?
        var windowStart: Int64 = 0
        var windowFrames = 0
        var ended = false
    }
    private let state = Mutex(State())

    public init() {}

    public func onFrame(_ frame: VideoFrame) {
        state.withLock { state in
            state.stats.frames += 1
            state.latest = frame
            state.windowFrames += 1
            let elapsed = frame.captureTimeNanos - state.windowStart
            if elapsed >= 1_000_000_000 {
                state.stats.framesPerSecond = state.windowStart == 0 ? 0 : Double(state.windowFrames) * 1e9 / Double(elapsed)
                state.stats.lastCode = FrameCode.read(from: frame.buffer)
                state.windowStart = frame.captureTimeNanos
                state.windowFrames = 0
            }
        }
    }

    public func onEndOfStream() { state.withLock { $0.ended = true } }

    public var stats: Stats { state.withLock { $0.stats } }
    /// The source has no more frames (a file played to its end without looping).
    public var sourceEnded: Bool { state.withLock { $0.ended } }
    public var latest: VideoFrame? { state.withLock { $0.latest } }
}
