import MediaCore

/// Something a capturer reports besides frames.
public enum CaptureEvent: Sendable, Equatable {
    /// Streaming began (or resumed after a switch or recovery) with this negotiated format.
    case started(CaptureFormat)
    /// A problem; the capturer may recover by itself (unplug, stall) or stop.
    case error(CaptureError)
    /// The source ended (end of file without looping, or ``VideoCapturer/stop()``).
    case stopped
}

/// A video source: camera, file or test pattern. Modelled on WebRTC's capturer modules.
///
/// `start` and `stop` are asynchronous and serialized: a second `start` while one is in progress
/// returns the same result, and `stop` waits until no frame is being delivered. Frames go to the
/// sink on the capturer's own loop; a sink must only enqueue (see ``VideoSink``). When buffers run
/// out because consumers are slow, the capturer drops the frame and counts it — it never blocks or
/// queues without bound.
public protocol VideoCapturer: AnyObject, Sendable {
    /// A human-readable name for logs and `livepush sources`.
    var name: String { get }
    /// Status events (started, errors, stopped), for logs, the API and tests.
    var events: AsyncStream<CaptureEvent> { get }
    /// Frames dropped at the source so far.
    var droppedFrames: Int { get }
    /// Opens the source and starts delivering frames to `sink`; returns the negotiated format.
    func start(sink: any VideoSink) async throws(CaptureError) -> CaptureFormat
    /// Stops delivering frames; no `onFrame` call happens after this returns.
    func stop() async
}
