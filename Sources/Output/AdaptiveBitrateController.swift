/// Decides the encoder's bitrate from what the link shows, not from guesses: the send queue in
/// milliseconds of media, and the kernel's view of the socket (TCP_INFO: bytes not yet sent, RTT).
///
/// Congestion (a queue or kernel backlog beyond its budget, or RTT inflated well past the smallest seen)
/// cuts the bitrate by `decreaseFactor` at most once a second. A clear link raises it by `increaseFactor`:
/// the first raise after a cut waits `hold`, later ones follow every `stepSeconds` while the link stays clear.
/// A cut right after raising (a failed probe) doubles `hold` (up to a minute), so a link that cannot carry
/// the target is probed less and less often; cuts within one congested spell do not, so a link that
/// recovers gets its bitrate back within seconds. A long quiet spell at the target resets `hold`.
public struct AdaptiveBitrateController: Sendable, Hashable {
    public struct Settings: Sendable, Hashable {
        public var targetBitsPerSecond: Int
        public var minimumBitsPerSecond: Int
        public var decreaseFactor = 0.7
        public var increaseFactor = 1.1
        /// Queued media above this counts as congestion.
        public var congestedQueueMilliseconds: Int64 = 400
        /// Queued media below this (and little unsent data) counts as a clear link.
        public var clearQueueMilliseconds: Int64 = 100
        public var initialHoldSeconds = 4.0
        public var maximumHoldSeconds = 60.0
        /// Between consecutive raises.
        public var stepSeconds = 1.0

        public init(targetBitsPerSecond: Int, minimumBitsPerSecond: Int? = nil) {
            self.targetBitsPerSecond = max(1, targetBitsPerSecond)
            self.minimumBitsPerSecond = min(self.targetBitsPerSecond, minimumBitsPerSecond ?? max(100_000, targetBitsPerSecond / 5))
        }
    }

    /// One look at the link.
    public struct Sample: Sendable, Hashable {
        public var nowNanos: Int64
        public var queuedMilliseconds: Int64
        /// Bytes the kernel holds that were not sent yet (SIOCOUTQNSD / tcpi_notsent_bytes).
        public var unsentBytes: Int?
        /// Smoothed RTT (tcpi_rtt).
        public var rttMicroseconds: Int?

        public init(nowNanos: Int64, queuedMilliseconds: Int64, unsentBytes: Int? = nil, rttMicroseconds: Int? = nil) {
            self.nowNanos = nowNanos
            self.queuedMilliseconds = queuedMilliseconds
            self.unsentBytes = unsentBytes
            self.rttMicroseconds = rttMicroseconds
        }
    }

    public let settings: Settings
    public private(set) var bitsPerSecond: Int
    private var lastChangeNanos: Int64?
    private var lastDecreaseNanos: Int64?
    private var lastChangeWasRaise = false
    private var holdSeconds: Double
    private var smallestRTT: Int?

    public init(settings: Settings) {
        self.settings = settings
        bitsPerSecond = settings.targetBitsPerSecond
        holdSeconds = settings.initialHoldSeconds
    }

    /// Returns the new bitrate when it should change.
    public mutating func update(_ sample: Sample) -> Int? {
        if let rtt = sample.rttMicroseconds, rtt > 0 { smallestRTT = min(smallestRTT ?? rtt, rtt) }
        let now = sample.nowNanos
        if isCongested(sample) {
            guard bitsPerSecond > settings.minimumBitsPerSecond, elapsed(since: lastDecreaseNanos, now: now) >= 1 else { return nil }
            if lastChangeWasRaise { holdSeconds = min(settings.maximumHoldSeconds, holdSeconds * 2) }
            lastDecreaseNanos = now
            lastChangeWasRaise = false
            return change(to: max(settings.minimumBitsPerSecond, Int((Double(bitsPerSecond) * settings.decreaseFactor).rounded())), now: now)
        }
        let wait = lastChangeWasRaise ? settings.stepSeconds : holdSeconds
        guard isClear(sample), elapsed(since: lastChangeNanos, now: now) >= wait else { return nil }
        guard bitsPerSecond < settings.targetBitsPerSecond else {
            // Steady at the target for twice the hold: forget old congestion.
            if elapsed(since: lastChangeNanos, now: now) >= 2 * holdSeconds {
                holdSeconds = settings.initialHoldSeconds
                lastChangeWasRaise = false
            }
            return nil
        }
        lastChangeWasRaise = true
        return change(to: min(settings.targetBitsPerSecond, max(bitsPerSecond + 1, Int((Double(bitsPerSecond) * settings.increaseFactor).rounded()))), now: now)
    }

    private func isCongested(_ sample: Sample) -> Bool {
        if sample.queuedMilliseconds > settings.congestedQueueMilliseconds { return true }
        if let unsent = sample.unsentBytes, unsent * 8 * 1000 / max(1, bitsPerSecond) > Int(settings.congestedQueueMilliseconds) { return true }
        if let rtt = sample.rttMicroseconds, let base = smallestRTT, rtt > base * 4 + 200_000 { return true }
        return false
    }

    private func isClear(_ sample: Sample) -> Bool {
        guard sample.queuedMilliseconds < settings.clearQueueMilliseconds else { return false }
        if let unsent = sample.unsentBytes, unsent * 8 * 1000 / max(1, bitsPerSecond) >= Int(settings.clearQueueMilliseconds) { return false }
        return true
    }

    private mutating func change(to value: Int, now: Int64) -> Int? {
        lastChangeNanos = now
        guard value != bitsPerSecond else { return nil }
        bitsPerSecond = value
        return value
    }

    private func elapsed(since time: Int64?, now: Int64) -> Double {
        guard let time else { return .infinity }
        return Double(now - time) / 1e9
    }
}
