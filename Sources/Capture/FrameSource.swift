import MediaCore

/// What a source's read step produced.
public enum SourceOutput: Sendable {
    case frame(VideoFrame)
    /// A frame was lost at the source (no free buffer, corrupt data, a sequence gap); counted as dropped.
    case dropped(count: Int)
    /// Nothing this time (a poll timed out); the loop checks for stop and calls again.
    case idle
    case endOfStream
    /// No frame, but something for the capturer to report on ``VideoCapturer/events``: a
    /// ``ResilientSource`` lost its camera (``CaptureEvent/error(_:)``; the no-signal card follows)
    /// or has it back (``CaptureEvent/started(_:)``).
    case event(CaptureEvent)
}

/// The blocking, single-threaded half of a capturer: a device, file or generator that
/// ``ThreadedCapturer`` drives on its own thread.
///
/// `read` may block until the next frame is due, but for at most about 100 ms at a time (return
/// ``SourceOutput/idle``), so a stop request is honoured promptly. Sources are used from one
/// thread at a time and need no locking of their own: conforming classes are `@unchecked Sendable`
/// because, once handed to a capturer, only its thread touches them.
public protocol FrameSource: AnyObject, Sendable {
    var name: String { get }
    /// Opens the device or file and negotiates the format.
    func open(config: CaptureConfig) throws(CaptureError) -> CaptureFormat
    /// Produces the next frame into a buffer from `pool`.
    func read(pool: FrameBufferPool) throws(CaptureError) -> SourceOutput
    /// Releases the device or file. Called once after a successful `open`.
    func close()
    /// Whether an error from `read` is worth re-opening for (an unplugged or stalled camera).
    func isRecoverable(_ error: CaptureError) -> Bool
    /// True when the source applies ``CaptureConfig/mirror`` itself (rpicam-vid's `--hflip`), so
    /// the capturer does not mirror its frames a second time.
    var mirrorsAtSource: Bool { get }
    /// True when the source delivers frames before they are due (``CaptureConfig/fileRunAhead``):
    /// the capturer then waits for its sink to be done with each frame (``VideoSink/waitUntilConsumed(deadlineNanos:)``)
    /// instead of letting the encoder's queue drop what it cannot take yet.
    var runsAheadOfClock: Bool { get }
}

extension FrameSource {
    public func isRecoverable(_ error: CaptureError) -> Bool { false }
    public var mirrorsAtSource: Bool { false }
    public var runsAheadOfClock: Bool { false }
}
