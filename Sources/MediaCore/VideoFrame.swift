/// One captured picture travelling through the pipeline, modelled on WebRTC's `RTCVideoFrame`.
///
/// A value type: copying a frame shares its ``I420Buffer``. Metadata (rotation, capture time)
/// lives here rather than on the buffer, so the same pixels can be described differently.
public struct VideoFrame: Sendable {
    public var buffer: I420Buffer
    /// Clockwise turn needed to display the frame upright.
    public var rotation: VideoRotation
    /// When the camera captured the frame, on ``MonotonicClock`` (nanoseconds).
    public var captureTimeNanos: Int64
    /// The source's running frame number (gaps mean the source dropped frames).
    public var frameNumber: UInt64

    public init(buffer: I420Buffer, rotation: VideoRotation = .none, captureTimeNanos: Int64, frameNumber: UInt64 = 0) {
        self.buffer = buffer
        self.rotation = rotation
        self.captureTimeNanos = captureTimeNanos
        self.frameNumber = frameNumber
    }

    public var width: Int { buffer.width }
    public var height: Int { buffer.height }

    /// Width and height as displayed, after applying ``rotation``.
    public var displaySize: (width: Int, height: Int) {
        rotation.swapsDimensions ? (height, width) : (width, height)
    }

    /// The capture time on the wall clock, for RTCP sender reports and latency measurements.
    public func wallClockNanos(using mapping: WallClockMapping) -> Int64 {
        mapping.wallClockNanos(forMonotonic: captureTimeNanos)
    }
}
