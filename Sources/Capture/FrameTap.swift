import MediaCore
import Synchronization

/// Sits between a capturer and the encoder: lets the processor (the text overlay) change the frame,
/// counts frames for the capture fps and hands the next frame to snapshot requests. `onFrame` only
/// takes a lock and forwards, as a sink must.
final class FrameTap: VideoSink {
    private struct State {
        var frames = 0
        var nextTicket = 0
        var waiters: [Int: CheckedContinuation<VideoFrame?, Never>] = [:]
        /// Tickets whose timeout fired before their continuation was registered.
        var expired: Set<Int> = []
    }
    private let next: any VideoSink
    private let processor: (any VideoFrameProcessor)?
    private let state = Mutex(State())

    init(forwardingTo next: any VideoSink, processor: (any VideoFrameProcessor)? = nil) {
        self.next = next
        self.processor = processor
    }

    func onFrame(_ frame: VideoFrame) {
        processor?.process(frame)
        let waiters = state.withLock { state in
            state.frames += 1
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume(returning: frame) }
        next.onFrame(frame)
    }

    func onDiscardedFrame() { next.onDiscardedFrame() }

    func onEndOfStream() { next.onEndOfStream() }

    func waitUntilConsumed(deadlineNanos: Int64) { next.waitUntilConsumed(deadlineNanos: deadlineNanos) }

    /// Frames seen so far (for the capture fps).
    var frameCount: Int { state.withLock { $0.frames } }

    /// The next captured frame, or nil after `timeoutSeconds` (a stopped camera).
    func nextFrame(timeoutSeconds: Double) async -> VideoFrame? {
        let ticket = state.withLock { state in
            state.nextTicket += 1
            return state.nextTicket
        }
        let timeout = Task {
            try? await Task.sleep(for: .seconds(timeoutSeconds))
            guard !Task.isCancelled else { return }
            let waiter = state.withLock { state in
                let waiter = state.waiters.removeValue(forKey: ticket)
                if waiter == nil { state.expired.insert(ticket) }
                return waiter
            }
            waiter?.resume(returning: nil)
        }
        defer { timeout.cancel() }
        return await withCheckedContinuation { continuation in
            let expired = state.withLock { state in
                if state.expired.remove(ticket) != nil { return true }
                state.waiters[ticket] = continuation
                return false
            }
            if expired { continuation.resume(returning: nil) }
        }
    }
}
