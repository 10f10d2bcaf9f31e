import Codec

/// Audio frames held until the video has passed them.
///
/// Audio usually arrives ahead of the video of the same moment (the video encoder's delay), so
/// which file an AAC frame belongs in is known only once a video frame later than it arrives: a
/// key frame that starts a new file could still come. Bounded: past ``capacity`` frames (the video
/// stalled or stopped) the oldest are released anyway. Its storage is reserved once, so holding
/// and releasing frames allocates nothing.
struct PendingAudio {
    /// About 5 s of 48 kHz AAC, far more than any encoder's delay.
    static let capacity = 256
    private var frames: [EncodedAudioFrame]
    /// The DTS of the latest video frame seen; audio before it may be written.
    private var videoNanos = Int64.min

    init() {
        frames = []
        frames.reserveCapacity(Self.capacity + 1)
    }

    mutating func add(_ frame: EncodedAudioFrame) { frames.append(frame) }

    /// Notes a video frame at `dtsNanos`: audio from before it is ready.
    mutating func videoPassed(_ dtsNanos: Int64) { videoNanos = max(videoNanos, dtsNanos) }

    /// The oldest frame held when it may be written now (the video has passed it, or more than
    /// ``capacity`` are held), else nil.
    mutating func popReady() -> EncodedAudioFrame? {
        guard let first = frames.first, first.ptsNanos < videoNanos || frames.count > Self.capacity else { return nil }
        return frames.removeFirst()
    }

    /// The oldest frame held, whatever the video did (the recording is ending).
    mutating func popAny() -> EncodedAudioFrame? { frames.isEmpty ? nil : frames.removeFirst() }
}
