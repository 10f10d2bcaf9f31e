import Codec

/// Audio frames held until the video has passed them.
///
/// Audio usually arrives ahead of the video of the same moment (the video encoder's delay), so
/// which file an AAC frame belongs in is known only once a video frame later than it arrives: a
/// key frame that starts a new file could still come. Bounded: past ``capacity`` frames (the video
/// stalled or stopped) the oldest are released anyway.
struct PendingAudio {
    /// About 5 s of 48 kHz AAC, far more than any encoder's delay.
    static let capacity = 256
    private var frames: [EncodedAudioFrame] = []
    /// The DTS of the latest video frame seen; audio before it is released at once.
    private var videoNanos = Int64.min

    /// Adds `frame` and returns the frames to write now, oldest first.
    mutating func add(_ frame: EncodedAudioFrame) -> [EncodedAudioFrame] {
        frames.append(frame)
        let ready = frames.prefix { $0.ptsNanos < videoNanos }.count
        return take(max(ready, frames.count - Self.capacity))
    }

    /// Notes a video frame at `dtsNanos` and returns the frames from before it, oldest first.
    mutating func release(before dtsNanos: Int64) -> [EncodedAudioFrame] {
        videoNanos = max(videoNanos, dtsNanos)
        return take(frames.prefix { $0.ptsNanos < dtsNanos }.count)
    }

    /// Everything held, oldest first (the recording is ending).
    mutating func releaseAll() -> [EncodedAudioFrame] { take(frames.count) }

    private mutating func take(_ count: Int) -> [EncodedAudioFrame] {
        guard count > 0 else { return [] }
        defer { frames.removeFirst(count) }
        return Array(frames.prefix(count))
    }
}
