/// RTMP timestamps: milliseconds since the first frame of the whole run, on the encoder's monotonic clock.
///
/// The origin is fixed at the first frame and kept across reconnects, so timestamps never go backwards when
/// a connection is replaced. Audio is clamped to be non-decreasing (FLV demuxers reject a step back);
/// video strictly increasing, because two video tags at the same millisecond (frames captured in a
/// burst after a stall) are a non-monotonic DTS to ffmpeg and to servers that remux.
/// Composition offsets are taken between the rounded PTS and DTS, so they never drift from the tags' times.
///
/// Multitrack video (enhanced RTMP v2): each track keeps its own strictly increasing times from the one
/// origin. One sequence for all would move each track's frame 1 ms after the same capture time on the
/// track before it, and the tracks' keyframes would no longer share their times.
public struct RTMPMediaClock: Sendable, Hashable {
    private var originNanos: Int64?
    private var lastVideoMillis: [UInt32?]
    private var lastAudioMillis: UInt32 = 0

    /// `videoTracks`: how many video tracks keep their own sequence (track ids 0 up to it).
    public init(videoTracks: Int = 1) {
        lastVideoMillis = Array(repeating: nil, count: max(1, videoTracks))
    }

    /// Video tag timestamp and composition offset (PTS − DTS) in milliseconds, on `track`'s sequence.
    public mutating func video(ptsNanos: Int64, dtsNanos: Int64, track: Int = 0) -> (timestamp: UInt32, compositionOffset: Int32) {
        let dts = lastVideoMillis[track].map { max($0 &+ 1, millis(dtsNanos)) } ?? millis(dtsNanos)
        lastVideoMillis[track] = dts
        let pts = max(Int64(dts), Int64(millis(ptsNanos)))
        return (dts, Int32(clamping: pts - Int64(dts)))
    }

    public mutating func audio(timestampNanos: Int64) -> UInt32 {
        let time = max(lastAudioMillis, millis(timestampNanos))
        lastAudioMillis = time
        return time
    }

    /// The latest timestamp handed out on any track (metadata and sequence headers go out at this time).
    public var currentMillis: UInt32 { lastVideoMillis.reduce(lastAudioMillis) { max($0, $1 ?? 0) } }

    private mutating func millis(_ nanos: Int64) -> UInt32 {
        let origin = originNanos ?? nanos
        originNanos = origin
        let elapsed = max(0, nanos - origin)
        return UInt32(truncatingIfNeeded: (elapsed + 500_000) / 1_000_000)
    }
}
