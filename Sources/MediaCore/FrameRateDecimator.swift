/// Thins a stream of frames down to at most a target frame rate, by their capture timestamps.
///
/// A rendition at 15 fps fed by a 30 fps camera, or an encoder stepped down to a lower frame rate
/// under CPU overload, keeps the frames whose timestamps reach the next slot and skips the rest.
/// Slots advance by whole intervals from the last kept frame, so jittery capture timestamps do not
/// drift the kept rate, and a gap (a stall) restarts the schedule instead of letting a burst through.
/// A value type with no allocation: the encoder thread owns one per encode.
public struct FrameRateDecimator: Sendable, Equatable {
    /// The most frames per second kept; nil keeps every frame.
    public private(set) var maximumFramesPerSecond: Double?
    private var nextSlotNanos: Int64?

    public init(maximumFramesPerSecond: Double? = nil) {
        self.maximumFramesPerSecond = maximumFramesPerSecond
    }

    /// Changes the target from the next frame on (nil: keep every frame).
    public mutating func setMaximum(_ framesPerSecond: Double?) {
        guard framesPerSecond != maximumFramesPerSecond else { return }
        maximumFramesPerSecond = framesPerSecond
        nextSlotNanos = nil
    }

    /// Whether the frame captured at `timestampNanos` is kept.
    public mutating func keeps(timestampNanos: Int64) -> Bool {
        guard let fps = maximumFramesPerSecond, fps > 0 else { return true }
        let interval = Int64(1e9 / fps)
        // Half a millisecond of slack: a 30 fps source thinned to 30 fps keeps every frame.
        let slack = min(500_000, interval / 4)
        guard let next = nextSlotNanos, timestampNanos + slack >= next - interval else {
            nextSlotNanos = timestampNanos + interval
            return true
        }
        guard timestampNanos + slack >= next else { return false }
        // Far past the slot (a stall): start again from this frame.
        nextSlotNanos = timestampNanos - next >= interval ? timestampNanos + interval : next + interval
        return true
    }
}
