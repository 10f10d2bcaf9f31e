/// Spreads one peer's packets over time at a multiple of its bandwidth estimate, the way
/// libwebrtc's paced sender does for GCC: a video frame (above all a key frame) handed over as one
/// burst would queue at the bottleneck at once, and the delay-based estimator would read that
/// self-made queue as overuse. Sent at ``Settings/pacingFactor`` × the estimate in steps of
/// ``Settings/intervalNanos``, a frame leaves over a few milliseconds instead.
///
/// Priority: audio first and outside the budget (a few small packets; late audio is worse than
/// late video), then retransmissions, then video, then probe padding. Each class has its own ring
/// (``PacketRing``), allocated at init. The budget works as libwebrtc's `IntervalBudget`: each
/// elapsed interval adds `rate × elapsed` bytes; an unused positive budget is not saved up (an
/// idle pacer does not release a burst later), a deficit (a packet larger than what was left) is
/// paid back first.
///
/// Bounded in time, not only in count: ``videoQueueNanos(nowNanos:)`` says how long the queued
/// video needs at the pacing rate (or how old its oldest packet is, whichever is longer); the owner
/// refuses new frames past ``Settings/maximumVideoQueueNanos`` and waits for a key frame, since a
/// standing queue is latency every later frame pays.
///
/// Pure: no clock, no I/O; the owner calls ``next(nowNanos:)`` from its event loop until it returns
/// nil, and again at ``nextSendNanos(nowNanos:)``.
public struct PacketPacer<Packet> {
    public enum Kind: Int, CaseIterable, Sendable {
        case audio = 0, retransmission, video, padding
    }

    public struct Settings: Sendable, Equatable {
        /// Packets leave at this multiple of the estimate (libwebrtc's default 2.5): fast enough that
        /// a frame rarely waits for the next, slow enough not to burst into the bottleneck's queue.
        public var pacingFactor = 2.5
        /// The budget step: packets leave in bunches at most this far apart.
        public var intervalNanos: Int64 = 5_000_000
        /// After idling, up to this long of the pacing rate's budget is credited at once (when longer
        /// than ``intervalNanos``), so a frame that finds the pacer idle leaves whole instead of in
        /// 5 ms steps (libwebrtc's burst interval, 40 ms by default there). 0: one interval. Not while
        /// a probe cluster goes out: its packets must leave at its rate to measure the path.
        public var idleBurstNanos: Int64 = 0
        /// At most this much time is credited at once while packets wait (a late timer on a busy
        /// machine catches up; a long stall does not release a burst).
        public var maximumCreditNanos: Int64 = 30_000_000
        /// The owner drops new video frames (until a key frame) while the queue needs longer than this.
        public var maximumVideoQueueNanos: Int64 = 250_000_000
        /// Packets each class can hold.
        public var capacity = 1024

        public init() {}
    }

    public struct Queued {
        public var packet: Packet
        public var sizeBytes: Int
        public var enqueuedNanos: Int64
    }

    public let settings: Settings
    private var queues: [PacketRing<Queued>]
    private var budgetBytes = 0.0
    private var lastCreditNanos: Int64?
    /// The estimate the pacing rate follows.
    public private(set) var estimateBitsPerSecond: Int
    /// Bytes waiting in the budgeted classes (all but audio).
    public private(set) var queuedBytes = 0
    /// Video bytes waiting.
    public private(set) var queuedVideoBytes = 0
    /// Packets refused because their class's ring was full.
    public private(set) var packetsRefused = 0

    public init(estimateBitsPerSecond: Int, settings: Settings = Settings()) {
        self.settings = settings
        self.estimateBitsPerSecond = max(1, estimateBitsPerSecond)
        queues = Kind.allCases.map { _ in PacketRing(capacity: settings.capacity) }
    }

    /// While a probe cluster goes out: its rate, when above the pacing rate.
    public private(set) var probeBitsPerSecond: Int?

    public var pacingBitsPerSecond: Double { max(Double(estimateBitsPerSecond) * settings.pacingFactor, Double(probeBitsPerSecond ?? 0)) }

    /// A probe cluster starts (its padding queued) or ends (nil): packets leave at its rate meanwhile.
    public mutating func setProbe(bitsPerSecond: Int?) {
        probeBitsPerSecond = bitsPerSecond
    }
    public var isEmpty: Bool { queues.allSatisfy(\.isEmpty) }
    public func count(of kind: Kind) -> Int { queues[kind.rawValue].count }

    public mutating func setEstimate(bitsPerSecond: Int) {
        estimateBitsPerSecond = max(1, bitsPerSecond)
    }

    /// Queues one packet of `sizeBytes` on the wire; false (not queued) when its class is full.
    @discardableResult
    public mutating func enqueue(_ packet: Packet, sizeBytes: Int, kind: Kind, nowNanos: Int64) -> Bool {
        if isEmpty { credit(nowNanos: nowNanos, idle: true) }
        guard queues[kind.rawValue].push(Queued(packet: packet, sizeBytes: sizeBytes, enqueuedNanos: nowNanos)) else {
            packetsRefused += 1
            return false
        }
        if kind != .audio { queuedBytes += sizeBytes }
        if kind == .video { queuedVideoBytes += sizeBytes }
        return true
    }

    /// The next packet allowed to leave now, highest priority first; nil when the queue is empty
    /// or the budget is spent (ask again at ``nextSendNanos(nowNanos:)``).
    public mutating func next(nowNanos: Int64) -> (packet: Packet, kind: Kind)? {
        credit(nowNanos: nowNanos, idle: false)
        if let audio = queues[Kind.audio.rawValue].pop() {
            budgetBytes -= Double(audio.sizeBytes)
            return (audio.packet, .audio)
        }
        guard budgetBytes > 0 else { return nil }
        for kind in Kind.allCases.dropFirst() {
            guard let queued = queues[kind.rawValue].pop() else { continue }
            budgetBytes -= Double(queued.sizeBytes)
            queuedBytes -= queued.sizeBytes
            if kind == .video { queuedVideoBytes -= queued.sizeBytes }
            return (queued.packet, kind)
        }
        return nil
    }

    /// When to call ``next(nowNanos:)`` again: nil when nothing waits.
    public func nextSendNanos(nowNanos: Int64) -> Int64? {
        isEmpty ? nil : (lastCreditNanos ?? nowNanos) + settings.intervalNanos
    }

    /// How long the queued video needs at the pacing rate, or how long its oldest packet has waited
    /// when that is longer: what a new frame would wait behind in the pacer. (Measured at the
    /// estimate instead, a key frame larger than a quarter second of the estimate — a 360p key frame
    /// on a 1 Mbit/s link — would have every frame after it refused, and each key frame asked for
    /// then would do the same.)
    public func videoQueueNanos(nowNanos: Int64) -> Int64 {
        let drain = Int64(Double(queuedVideoBytes) * 8 * 1e9 / pacingBitsPerSecond)
        let age = queues[Kind.video.rawValue].first.map { nowNanos - $0.enqueuedNanos } ?? 0
        return max(drain, age)
    }

    /// Whether a new video frame would find the queue past ``Settings/maximumVideoQueueNanos``.
    public func isVideoQueueFull(nowNanos: Int64) -> Bool {
        videoQueueNanos(nowNanos: nowNanos) > settings.maximumVideoQueueNanos
    }

    /// Adds the budget for the time since the last credit: at most one interval (or the idle
    /// burst) after idling, at most ``Settings/maximumCreditNanos`` while packets wait.
    private mutating func credit(nowNanos: Int64, idle: Bool) {
        let idleCreditNanos = probeBitsPerSecond == nil ? max(settings.intervalNanos, settings.idleBurstNanos) : settings.intervalNanos
        guard let last = lastCreditNanos else {
            lastCreditNanos = nowNanos
            budgetBytes = pacingBitsPerSecond / 8 * Double(idleCreditNanos) / 1e9
            return
        }
        guard nowNanos > last else { return }
        lastCreditNanos = nowNanos
        let elapsed = min(nowNanos - last, idle ? idleCreditNanos : settings.maximumCreditNanos)
        let bytes = pacingBitsPerSecond / 8 * Double(elapsed) / 1e9
        budgetBytes = budgetBytes < 0 ? min(budgetBytes + bytes, bytes) : bytes
    }
}

extension PacketPacer: Sendable where Packet: Sendable {}
extension PacketPacer.Queued: Sendable where Packet: Sendable {}
