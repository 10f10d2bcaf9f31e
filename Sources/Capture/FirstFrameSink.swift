import MediaCore
import Synchronization

/// Takes the first frame a capturer delivers (snapshots, probes) and ignores the rest.
public final class FirstFrameSink: VideoSink {
    private struct State {
        var frame: VideoFrame?
        var timedOut = false
        var waiter: CheckedContinuation<VideoFrame?, Never>?
    }
    private let state = Mutex(State())

    public init() {}

    public func onFrame(_ frame: VideoFrame) {
        let waiter = state.withLock { state -> CheckedContinuation<VideoFrame?, Never>? in
            guard state.frame == nil else { return nil }
            state.frame = frame
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: frame)
    }

    /// Waits for the first frame, at most `timeoutSeconds`; nil if none came.
    public func wait(timeoutSeconds: Double) async -> VideoFrame? {
        let timeout = Task {
            try await Task.sleep(for: .seconds(timeoutSeconds))
            let waiter = state.withLock { state -> CheckedContinuation<VideoFrame?, Never>? in
                state.timedOut = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
        defer { timeout.cancel() }
        return await withCheckedContinuation { continuation in
            let outcome = state.withLock { state -> VideoFrame?? in
                if let frame = state.frame { return .some(frame) }
                if state.timedOut { return .some(nil) }
                state.waiter = continuation
                return .none
            }
            if let outcome { continuation.resume(returning: outcome) }
        }
    }
}
