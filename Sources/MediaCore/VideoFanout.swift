import Synchronization

/// Hands every frame of one source to several sinks (encoders, preview, snapshot tap) without copying:
/// frames share their ``I420Buffer``.
public final class VideoFanout: VideoSink {
    private let sinks = Mutex<[(id: Int, sink: any VideoSink)]>([])
    private let nextID = Mutex(0)

    public init() {}

    /// Adds a sink; keep the token to remove it.
    @discardableResult
    public func add(_ sink: any VideoSink) -> Int {
        let id = nextID.withLock { $0 += 1; return $0 }
        sinks.withLock { $0.append((id, sink)) }
        return id
    }

    /// After this returns the sink gets no further frames.
    public func remove(_ id: Int) { sinks.withLock { $0.removeAll { $0.id == id } } }

    public func onFrame(_ frame: VideoFrame) {
        for entry in sinks.withLock({ $0 }) { entry.sink.onFrame(frame) }
    }

    public func onDiscardedFrame() {
        for entry in sinks.withLock({ $0 }) { entry.sink.onDiscardedFrame() }
    }
}
