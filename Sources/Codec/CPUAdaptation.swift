import MediaCore

/// One encode's CPU-overload adaptation, owned by its encoder thread: the ladder, where on it the
/// encode is, the detector that moves it, and the frame-rate thinning of the current rung.
///
/// ``EncoderQueue`` feeds it each frame's encode time and the queue's drop count; a step it
/// returns is applied by reopening the encoder at the rung's size and rate (the next frame is an
/// IDR with SPS/PPS). A value type: no locks, no allocation per frame.
public struct CPUAdaptation: Sendable, Equatable {
    /// What status and metrics show.
    public struct Status: Sendable, Equatable {
        public var rung: AdaptationLadder.Rung
        /// 0 is the configured operating point; higher is further down.
        public var rungIndex: Int
        public var rungCount: Int
        public var stepsDown = 0
        public var stepsUp = 0
        /// The last step's log line ("encoder overloaded: … ; stepping … → …"), nil before any.
        public var lastReason: String?
        /// Frames skipped to hold a lowered frame rate (not counted as drops).
        public var thinnedFrames = 0
    }

    /// One step, as logged.
    public struct Step: Sendable, Equatable, CustomStringConvertible {
        public var from: AdaptationLadder.Rung
        public var to: AdaptationLadder.Rung
        public var isDown: Bool
        /// What moved it: this encoder's measurement, or a sibling rendition's overload.
        public var cause: String

        /// `encoder overloaded: 38 ms per frame against 16.7 ms; stepping 1920x1080@60 → 1280x720@60`.
        public var description: String { "\(cause); stepping \(from) → \(to)" }
    }

    public let ladder: AdaptationLadder
    public private(set) var detector: CPUOveruseDetector
    public private(set) var status: Status
    private var decimator = FrameRateDecimator()

    public init(width: Int, height: Int, framesPerSecond: Int, settings: CPUAdaptationSettings,
                thresholds: CPUOveruseDetector.Thresholds = CPUOveruseDetector.Thresholds()) {
        ladder = AdaptationLadder(width: width, height: height, framesPerSecond: framesPerSecond, settings: settings)
        detector = CPUOveruseDetector(upAfterSeconds: settings.upAfterSeconds, thresholds: thresholds)
        status = Status(rung: ladder.rungs[0], rungIndex: 0, rungCount: ladder.rungs.count)
    }

    /// Whether the frame is encoded at the current rung's frame rate (false: skip it).
    public mutating func keeps(_ frame: VideoFrame) -> Bool {
        guard decimator.keeps(timestampNanos: frame.captureTimeNanos) else {
            status.thinnedFrames += 1
            return false
        }
        return true
    }

    /// After each encoded frame: its encode time and the queue's drops so far. Returns the step to
    /// apply now, if the detector decided one. With `peers` (a camera with several renditions,
    /// this one at `index`), an overload steps down the lowest-priority rendition with a rung left,
    /// which may be another one, and a step up waits for the renditions above (``CPUAdaptationPeers``).
    public mutating func afterFrame(encodeNanos: Int64, totalDroppedFrames: Int, nowNanos: Int64,
                                    peers: (group: CPUAdaptationPeers, index: Int)? = nil) -> Step? {
        detector.record(encodeNanos: encodeNanos, totalDroppedFrames: totalDroppedFrames)
        let index = status.rungIndex
        let ownCanStepDown = index + 1 < ladder.rungs.count
        let decision = detector.evaluate(nowNanos: nowNanos, frameIntervalNanos: 1_000_000_000 / Int64(status.rung.framesPerSecond),
                                         canStepDown: peers?.group.anyCanStepDown ?? ownCanStepDown,
                                         canStepUp: index > 0 && peers.map { $0.group.mayStepUp($0.index) } != false)
        defer { reportTo(peers) }
        switch decision {
        case .hold:
            return nil
        case .stepDown(let measured):
            let cause = "encoder overloaded: \(measured)"
            if let peers, peers.group.stepDownTarget(overloadedBy: peers.index, reason: cause) != peers.index { return nil }
            return step(to: index + 1, cause: cause)
        case .stepUp(let measured):
            return step(to: index - 1, cause: "encoder has headroom: \(measured)")
        }
    }

    /// A step down a sibling rendition's overload asked of this one (``CPUAdaptationPeers``),
    /// booked with the detector like its own; nil at the floor.
    public mutating func stepDown(for siblingOverload: String, nowNanos: Int64, peers: (group: CPUAdaptationPeers, index: Int)) -> Step? {
        guard status.rungIndex + 1 < ladder.rungs.count else { return nil }
        detector.recordStepDown(at: nowNanos)
        defer { reportTo(peers) }
        return step(to: status.rungIndex + 1, cause: "a sibling rendition's \(siblingOverload)")
    }

    /// Tells the camera's renditions where this one is. An encoder calls it once as it opens, so its
    /// siblings count its ladder from the start: until a rendition reports, the group takes it for
    /// one at its floor, and an overload a sibling measured before this one's first frame would
    /// step the sibling instead of the lowest-priority rendition.
    public func report(to peers: (group: CPUAdaptationPeers, index: Int)) {
        peers.group.report(peers.index, rungIndex: status.rungIndex, rungCount: ladder.rungs.count, hasHeadroom: detector.hasHeadroom)
    }

    private func reportTo(_ peers: (group: CPUAdaptationPeers, index: Int)?) {
        if let peers { report(to: peers) }
    }

    private mutating func step(to target: Int, cause: String) -> Step {
        let step = Step(from: status.rung, to: ladder.rungs[target], isDown: target > status.rungIndex, cause: cause)
        status.rung = step.to
        status.rungIndex = target
        if step.isDown { status.stepsDown += 1 } else { status.stepsUp += 1 }
        status.lastReason = step.description
        decimator.setMaximum(step.to.framesPerSecond < ladder.rungs[0].framesPerSecond ? Double(step.to.framesPerSecond) : nil)
        return step
    }
}
