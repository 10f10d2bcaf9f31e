/// How an encode adapts to CPU overload (`adapt: {cpu: true, min_size, min_fps, up_after}` on a camera,
/// `--adapt-cpu` on `livepush stream`): the floor it may step down to and how long it waits with
/// headroom before stepping back up. See ``CPUOveruseDetector`` and ``AdaptationLadder``.
public struct CPUAdaptationSettings: Sendable, Equatable {
    /// The smallest picture a step down may reach (the ladder keeps the configured aspect).
    public var minimumWidth: Int
    public var minimumHeight: Int
    /// The lowest frame rate a step down may reach, once the size is at its floor.
    public var minimumFramesPerSecond: Int
    /// Seconds of sustained headroom before the first step up; a step up that had to be undone
    /// doubles it for the next one (up to ``CPUOveruseDetector/Thresholds/maximumBackoff`` times).
    public var upAfterSeconds: Double

    public init(minimumWidth: Int = 640, minimumHeight: Int = 360, minimumFramesPerSecond: Int = 15, upAfterSeconds: Double = 30) {
        self.minimumWidth = minimumWidth
        self.minimumHeight = minimumHeight
        self.minimumFramesPerSecond = minimumFramesPerSecond
        self.upAfterSeconds = upAfterSeconds
    }
}
