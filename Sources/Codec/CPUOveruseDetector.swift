/// Decides when an encode is overloaded and when it has headroom again, from what the encoder
/// thread measures: the time each frame took to encode against the frame interval, and the
/// frames the encoder queue dropped because the encoder was still busy.
///
/// Modelled on WebRTC's OveruseFrameDetector: the encode usage (mean encode time ÷ frame
/// interval) is judged once per check period. Overuse — usage above ``Thresholds/high`` or
/// more than ``Thresholds/droppedShare`` of the frames dropped — in ``Thresholds/overuseChecks`` periods in a row steps down at once; usage
/// below ``Thresholds/low`` with no drops, sustained for the up-after time, steps up. The gap
/// between the two thresholds is the hysteresis; a step up that is undone soon after doubles
/// the next wait (a growing backoff, up to ``Thresholds/maximumBackoff``), so an encode at the
/// edge of a rung does not oscillate. After any step the first period is not judged: it holds
/// the encoder's reopen and the queue left over from the old rung.
///
/// A value type with no allocation, owned by the encoder thread; times are monotonic nanoseconds.
public struct CPUOveruseDetector: Sendable, Equatable {
    public struct Thresholds: Sendable, Equatable {
        /// Usage (encode time ÷ frame interval) above which a period counts as overuse.
        public var high = 0.9
        /// Usage below which a period counts as headroom.
        public var low = 0.5
        /// The share of a period's frames dropped that counts as overuse, whatever the usage (at
        /// least two frames): a queue that overflows now and then at high usage is not yet overload.
        public var droppedShare = 0.05
        /// Overused periods in a row before stepping down.
        public var overuseChecks = 2
        /// The length of one judged period.
        public var periodNanos: Int64 = 1_000_000_000
        /// A step up undone within this many up-after times counts as failed and doubles the wait.
        public var failedStepUpWindow = 2.0
        /// The most the up-after time grows.
        public var maximumBackoff = 16

        public init() {}
    }

    /// Why a step was taken: the period that decided it.
    public struct Measurement: Sendable, Equatable, CustomStringConvertible {
        public var meanEncodeNanos: Int64
        public var frameIntervalNanos: Int64
        public var droppedFrames: Int

        public var usage: Double { frameIntervalNanos > 0 ? Double(meanEncodeNanos) / Double(frameIntervalNanos) : 0 }

        /// `38 ms per frame against 16.7 ms, 12 frames dropped`.
        public var description: String {
            let text = "\(Self.milliseconds(meanEncodeNanos)) ms per frame against \(Self.milliseconds(frameIntervalNanos)) ms"
            return droppedFrames > 0 ? text + ", \(droppedFrames) frames dropped" : text
        }

        static func milliseconds(_ nanos: Int64) -> String {
            let tenths = (nanos + 50_000) / 100_000
            return tenths % 10 == 0 || tenths >= 1000 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
        }
    }

    public enum Decision: Sendable, Equatable {
        case hold
        case stepDown(Measurement)
        case stepUp(Measurement)
    }

    public let thresholds: Thresholds
    public let upAfterNanos: Int64
    /// The current up-after time is ``upAfterNanos`` times this.
    public private(set) var backoff = 1

    private var periodStartNanos: Int64?
    private var encodeNanos: Int64 = 0
    private var frames = 0
    private var dropsAtPeriodStart: Int?
    private var latestDrops = 0
    private var overusedPeriods = 0
    private var headroomSinceNanos: Int64?
    private var skipNextPeriod = false
    private var lastStepUpNanos: Int64?
    private var lastStepNanos: Int64?

    public init(upAfterSeconds: Double, thresholds: Thresholds = Thresholds()) {
        self.thresholds = thresholds
        upAfterNanos = Int64(upAfterSeconds * 1e9)
    }

    /// One encoded frame: how long `encode` took, and the queue's drop count so far (a running total).
    public mutating func record(encodeNanos: Int64, totalDroppedFrames: Int) {
        self.encodeNanos += encodeNanos
        frames += 1
        latestDrops = totalDroppedFrames
    }

    /// Judges the period once it is over (call after each frame); `hold` until then.
    /// `frameIntervalNanos` is the current rung's; `canStepDown`/`canStepUp` say whether the ladder has room.
    public mutating func evaluate(nowNanos: Int64, frameIntervalNanos: Int64, canStepDown: Bool, canStepUp: Bool) -> Decision {
        guard let start = periodStartNanos else {
            startPeriod(at: nowNanos)
            return .hold
        }
        guard nowNanos - start >= thresholds.periodNanos, frames > 0 else { return .hold }
        let measurement = Measurement(meanEncodeNanos: encodeNanos / Int64(frames), frameIntervalNanos: frameIntervalNanos,
                                      droppedFrames: max(0, latestDrops - (dropsAtPeriodStart ?? latestDrops)))
        let dropLimit = max(2, Int((Double(frames + measurement.droppedFrames) * thresholds.droppedShare).rounded(.up)))
        startPeriod(at: nowNanos)
        if skipNextPeriod {
            skipNextPeriod = false
            return .hold
        }
        if measurement.usage > thresholds.high || measurement.droppedFrames >= dropLimit {
            headroomSinceNanos = nil
            overusedPeriods += 1
            guard overusedPeriods >= thresholds.overuseChecks, canStepDown else { return .hold }
            recordStepDown(at: nowNanos)
            return .stepDown(measurement)
        }
        overusedPeriods = 0
        guard measurement.usage < thresholds.low, measurement.droppedFrames == 0 else {
            headroomSinceNanos = nil
            return .hold
        }
        let since = headroomSinceNanos ?? (nowNanos - thresholds.periodNanos)
        headroomSinceNanos = since
        guard canStepUp, nowNanos - since >= upAfterNanos * Int64(backoff) else { return .hold }
        // A step up that held for long (no step down within the window) resets the backoff.
        if let last = lastStepNanos, backoff > 1, Double(nowNanos - last) > 8 * Double(upAfterNanos) * Double(backoff) { backoff = 1 }
        lastStepUpNanos = nowNanos
        stepped(at: nowNanos)
        return .stepUp(measurement)
    }

    /// Whether the last judged period had headroom (usage below ``Thresholds/low``, no drops).
    public var hasHeadroom: Bool { headroomSinceNanos != nil }

    /// Books a step down at `nowNanos`, decided here or asked by a sibling rendition's overload
    /// (``CPUAdaptationPeers``): a step up undone this soon doubles the wait before the next one.
    public mutating func recordStepDown(at nowNanos: Int64) {
        if let up = lastStepUpNanos, Double(nowNanos - up) < thresholds.failedStepUpWindow * Double(upAfterNanos) * Double(backoff) {
            backoff = min(backoff * 2, thresholds.maximumBackoff)
        }
        lastStepUpNanos = nil
        stepped(at: nowNanos)
    }

    private mutating func startPeriod(at nowNanos: Int64) {
        periodStartNanos = nowNanos
        encodeNanos = 0
        frames = 0
        dropsAtPeriodStart = latestDrops
    }

    private mutating func stepped(at nowNanos: Int64) {
        overusedPeriods = 0
        headroomSinceNanos = nil
        skipNextPeriod = true
        lastStepNanos = nowNanos
    }
}
