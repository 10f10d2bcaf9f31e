/// Something that takes frames from a source: an encoder, a preview, a snapshot tap.
///
/// Contract (as WebRTC's `VideoSinkInterface`): `onFrame` is called on the source's own thread and
/// must return quickly, so a sink only enqueues into its own bounded queue (``BoundedWorker``, the
/// encoder's queue) and does its work on its own thread, counting what it drops.
public protocol VideoSink: Sendable {
    func onFrame(_ frame: VideoFrame)
    /// The source dropped a frame before it reached any sink (late consumer, corrupt input).
    func onDiscardedFrame()
    /// The source has no more frames: a file played to its end without looping. Not called when
    /// the capturer is stopped. `livepush stream` ends its run on it, as a player ends at a file's end.
    func onEndOfStream()
    /// Returns once the frames handed on so far are done with (encoded), or at `deadlineNanos`
    /// (CLOCK_MONOTONIC). A source that runs ahead of its clock (a file nobody watches live) waits
    /// here after each frame, so it goes at its consumers' pace instead of outrunning them into
    /// drops, and its next frame can reuse the buffer the last one had.
    func waitUntilConsumed(deadlineNanos: Int64)
}

extension VideoSink {
    public func onDiscardedFrame() {}
    public func onEndOfStream() {}
    public func waitUntilConsumed(deadlineNanos: Int64) {}
}

/// Changes a frame's pixels in place on the capture thread, before any sink sees it (the text
/// overlay burned in before snapshots and the encode). Must be quick, as `onFrame` must.
public protocol VideoFrameProcessor: Sendable {
    func process(_ frame: VideoFrame)
}
