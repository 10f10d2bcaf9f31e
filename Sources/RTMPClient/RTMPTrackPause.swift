/// Which tracks of a multitrack connection are paused because the link cannot carry them all: when the
/// send queue has to drop whole GOPs while publishing, the top track (0) stops being queued, then the next,
/// never the last; the lower tracks survive longest, and a server moves their viewers onto them. Once the
/// queue has stayed short for ``resumeAfterNanos``, the lowest paused track comes back (at a keyframe),
/// then the next. Values, no I/O: the output asks and acts.
public struct RTMPTrackPause: Sendable, Hashable {
    /// How many tracks the connection carries.
    public let tracks: Int
    /// How long the queue must stay at most a quarter of its limit before a paused track comes back.
    public let resumeAfterNanos: Int64
    /// How long after pausing a track the next drops may pause another: one episode of congestion drops
    /// many frames (and refuses more until a keyframe), which must not take every track but the last at once.
    public let holdNanos: Int64
    /// Tracks 0 up to this are paused.
    public private(set) var paused = 0
    private var shortSinceNanos: Int64?
    private var pausedAtNanos: Int64?

    public init(tracks: Int, resumeAfterNanos: Int64 = 10_000_000_000, holdNanos: Int64 = 3_000_000_000) {
        self.tracks = tracks
        self.resumeAfterNanos = resumeAfterNanos
        self.holdNanos = holdNanos
    }

    /// Whether `track`'s frames are queued now.
    public func carries(track: Int) -> Bool { track >= paused }

    /// The queue dropped frames others depend on while publishing: pauses one more track from the top,
    /// if one is left to pause (the last never is) and the last pause is ``holdNanos`` old; true when it did.
    public mutating func gopsDropped(nowNanos: Int64) -> Bool {
        shortSinceNanos = nil
        guard paused < tracks - 1, pausedAtNanos.map({ nowNanos - $0 >= holdNanos }) ?? true else { return false }
        paused += 1
        pausedAtNanos = nowNanos
        return true
    }

    /// Every check of the link: the track that comes back now, if the queue (`queuedNanos` of
    /// `limitNanos`) has been short long enough.
    public mutating func check(queuedNanos: Int64, limitNanos: Int64, nowNanos: Int64) -> Int? {
        guard paused > 0, queuedNanos <= limitNanos / 4 else {
            shortSinceNanos = nil
            return nil
        }
        let since = shortSinceNanos ?? nowNanos
        shortSinceNanos = since
        guard nowNanos - since >= resumeAfterNanos else { return nil }
        shortSinceNanos = nil
        paused -= 1
        return paused
    }
}
