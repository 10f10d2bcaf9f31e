/// Something that takes frames from a source: an encoder, a preview, a snapshot tap.
///
/// Contract (as WebRTC's `VideoSinkInterface`): `onFrame` is called on the source's own thread and
/// must return quickly, so a sink only enqueues (see ``BoundedDropQueue``) and does its work on its
/// own loop. After a sink is removed from a ``VideoFanout`` it gets no further calls.
public protocol VideoSink: Sendable {
    func onFrame(_ frame: VideoFrame)
    /// The source dropped a frame before it reached any sink (late consumer, corrupt input).
    func onDiscardedFrame()
}

extension VideoSink {
    public func onDiscardedFrame() {}
}
