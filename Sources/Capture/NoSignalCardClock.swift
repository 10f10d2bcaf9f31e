import MediaCore

/// Paces "no signal" cards (``NoSignalCard``) at the configured frame rate on the monotonic clock,
/// never in a burst after a long wait, and draws each one into a pooled buffer. Used by
/// ``ResilientSource`` while a camera is gone and by ``RpicamSource`` while rpicam-vid starts.
struct NoSignalCardClock {
    /// When the next card is due (CLOCK_MONOTONIC).
    private(set) var nextCardNanos: Int64 = 0
    /// Counts every card shown, across restarts (the frames' numbers).
    private var cardNumber: UInt64 = 0

    /// The first card is due at `nanos`.
    mutating func restart(at nanos: Int64) { nextCardNanos = nanos }

    /// A card when one is due at `now`, nil otherwise; a drop when every pooled buffer is held.
    mutating func cardIfDue(now: Int64, pool: FrameBufferPool, config: CaptureConfig, rotation: VideoRotation) throws(CaptureError) -> SourceOutput? {
        guard now >= nextCardNanos else { return nil }
        nextCardNanos += Int64(1e9 / config.framesPerSecond)
        if nextCardNanos < now { nextCardNanos = now }
        let buffer: I420Buffer?
        do { buffer = try pool.makeBuffer(width: config.size.width, height: config.size.height) } catch { throw .media(error) }
        guard let buffer else { return .dropped(count: 1) }
        NoSignalCard.draw(into: buffer, wallClockSeconds: Int(MonotonicClock.wallClockNowNanos() / 1_000_000_000))
        cardNumber += 1
        return .frame(VideoFrame(buffer: buffer, rotation: rotation, captureTimeNanos: now, frameNumber: cardNumber))
    }
}
