/// Turns the viewers' REMB estimates (draft-alvestrand-rmcat-remb) into the shared encoder's
/// bitrate: one encode serves every viewer, so it follows the slowest path among them.
///
/// The target is the smallest estimate times ``headroom`` (room for audio, RTP/SRTP overhead and
/// retransmissions), clamped to `minimum…configured`: never above what the user configured, never
/// below the floor. Without estimates the configured bitrate applies. A change goes out at most once
/// per ``minimumIntervalNanos`` and only when it moves the bitrate by more than ``hysteresis``,
/// so the estimates' jitter does not make the encoder re-tune on every RTCP packet. Pure: time is
/// a parameter, the owner (the WHEP event loop) calls it and applies what it returns.
public struct REMBBitratePolicy: Sendable, Equatable {
    public static let defaultMinimumIntervalNanos: Int64 = 1_000_000_000
    /// The floor when the user names none: below this, 720p is mush anyway.
    public static let defaultMinimumBitsPerSecond = 300_000
    /// Of an estimate, what the video may use.
    public static let headroom = 0.85
    /// Smaller relative moves are ignored.
    public static let hysteresis = 0.05

    public let configuredBitsPerSecond: Int
    public let minimumBitsPerSecond: Int
    public let minimumIntervalNanos: Int64
    /// What the encoder was last told (the configured bitrate at first).
    public private(set) var currentBitsPerSecond: Int
    private var estimates: [String: UInt64] = [:]
    private var lastChangeNanos: Int64?

    /// `minimum` is raised to 1 and lowered to `configured` when out of order.
    public init(configuredBitsPerSecond: Int, minimumBitsPerSecond: Int, minimumIntervalNanos: Int64 = defaultMinimumIntervalNanos) {
        self.configuredBitsPerSecond = max(1, configuredBitsPerSecond)
        self.minimumBitsPerSecond = min(max(1, minimumBitsPerSecond), self.configuredBitsPerSecond)
        self.minimumIntervalNanos = minimumIntervalNanos
        currentBitsPerSecond = self.configuredBitsPerSecond
    }

    /// A viewer's latest estimate.
    public mutating func record(estimateBitsPerSecond: UInt64, viewer: String) {
        estimates[viewer] = estimateBitsPerSecond
    }

    /// A viewer left: its estimate no longer holds the bitrate down.
    public mutating func remove(viewer: String) {
        estimates[viewer] = nil
    }

    /// What the encoder should be set to now, if that differs enough from what it was last told
    /// and the last change is at least the interval ago; nil otherwise.
    public mutating func decide(nowNanos: Int64) -> Int? {
        let target = self.target
        guard target != currentBitsPerSecond else { return nil }
        if let last = lastChangeNanos, nowNanos - last < minimumIntervalNanos { return nil }
        // Returning to a bound always goes through; elsewhere small moves are noise.
        let atBound = target == configuredBitsPerSecond || target == minimumBitsPerSecond
        guard atBound || abs(Double(target - currentBitsPerSecond)) > Self.hysteresis * Double(currentBitsPerSecond) else { return nil }
        currentBitsPerSecond = target
        lastChangeNanos = nowNanos
        return target
    }

    /// The clamped bitrate the current estimates allow.
    public var target: Int {
        guard let lowest = estimates.values.min() else { return configuredBitsPerSecond }
        let allowed = Double(lowest) * Self.headroom
        guard allowed < Double(configuredBitsPerSecond) else { return configuredBitsPerSecond }
        return max(minimumBitsPerSecond, Int(allowed))
    }
}
