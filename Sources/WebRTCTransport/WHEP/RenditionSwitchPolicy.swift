/// Which rendition one WHEP viewer gets, from its own bandwidth estimate, the way an SFU moves a
/// subscriber between simulcast layers: the shared encoders never change for one viewer's link.
///
/// - Down: when the estimate falls below the current rendition's bitrate (× ``Settings/downFactor``;
///   the rate its delta frames actually had over the last second when that is lower: an encoder
///   undershoots its target on easy pictures, and the estimate after one overuse is anchored to
///   what was sent; a key frame's burst is left out, or it would lift the threshold for a second),
///   the viewer is headed to the highest rendition the estimate holds (or the lowest) at once.
/// - Up, with probing (``Settings/upRequiresProbe``; a viewer with transport-cc and RTX): only when a
///   probe says the link holds the next higher rendition (its result ≥ ``Settings/probeSuccessFactor``
///   × that bitrate). Below the top, a probe at ``Settings/probeRateFactor`` × the next bitrate is
///   asked for ``Settings/probeIntervalNanos`` after arriving on the rendition and again as long as
///   none succeeds (``wantsProbe(nowNanos:)``). Each probe costs a narrow link a moment of queue
///   and loss: one that failed may be bad luck (cross traffic), but from the second that failed in
///   a row on this rendition on, each doubles the interval, up to ``Settings/maximumProbeIntervalNanos``.
///   The interval also doubles with the hold after a failed up-switch. An estimate that grew while
///   the viewer sent less is not evidence (it is anchored to what the lower rendition delivered),
///   so without a probe no up-switch happens.
/// - Up, without probing: when the estimate holds the next higher rendition with room (× ``Settings/upFactor``)
///   for ``Settings/upHoldNanos`` without a break, one step up. An up-switch followed by a
///   down-switch within ``Settings/failedUpWindowNanos`` failed (without probing, an estimate can
///   grow past what the link carries while the viewer sends less): the hold doubles, up to
///   ``Settings/maximumUpHoldNanos``, so a link at the edge does not flip back and forth.
/// - The switch itself happens at the target rendition's next key frame (``admits(rendition:isKeyFrame:ptsNanos:nowNanos:)``),
///   asked for when the switch is decided and again every ``Settings/keyFrameRetryNanos`` while it waits.
///   Going up, the viewer keeps getting the current rendition until then. Going down
///   (``Settings/dropCurrentWhileSwitchingDown``), it gets nothing more of the current one: the link
///   cannot carry it, every frame more of it lengthens the queue the lower rendition's key frame
///   must wait behind, and the picture only holds still (no reference is missed: the next frame
///   forwarded is that key frame).
///
/// Pure: time and the estimate are parameters; the viewer (on its event loop) owns one.
public struct RenditionSwitchPolicy: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Down below this share of the current rendition's bitrate: after one overuse the
        /// estimate is 0.85 × what the link delivered (as last measured, which may lag), so a link
        /// that carries the rendition stays above it.
        public var downFactor = 0.7
        public var upFactor = 1.3
        public var upHoldNanos: Int64 = 3_000_000_000
        public var maximumUpHoldNanos: Int64 = 60_000_000_000
        public var failedUpWindowNanos: Int64 = 15_000_000_000
        public var keyFrameRetryNanos: Int64 = 1_000_000_000
        /// Going down, stop forwarding the current rendition at once (see the type's description).
        public var dropCurrentWhileSwitchingDown = true
        /// Up-switches only on a probe's word (the viewer turns this on when it can probe).
        public var upRequiresProbe = false
        /// A probe goes at this multiple of the next higher rendition's bitrate, for ``probeDurationNanos``.
        public var probeRateFactor = 1.25
        public var probeDurationNanos: Int64 = 200_000_000
        /// Up when the probe's result is at least this multiple of the next higher rendition's bitrate.
        public var probeSuccessFactor = 1.1
        /// A probe costs a narrow link a moment of queue: the first comes this long after arriving on
        /// a lower rendition, the next as long after the last (see the type's description for failed ones).
        public var probeIntervalNanos: Int64 = 10_000_000_000
        /// The longest wait between probes on a link that failed every one: a link that widened is
        /// found within this.
        public var maximumProbeIntervalNanos: Int64 = 60_000_000_000

        public init() {}
    }

    public let settings: Settings
    /// Bitrates of the renditions, top (index 0) first.
    public let bitrates: [Int]
    /// The rendition whose frames the viewer gets.
    public private(set) var current = 0
    /// The rendition the viewer moves to at its next key frame.
    public private(set) var target: Int?
    public private(set) var switches = 0
    /// Nanoseconds spent on each rendition (the current one up to the last call).
    public private(set) var nanosOnRendition: [Int64]
    /// The current hold before an up-switch (grows after failed ones).
    public private(set) var upHoldNanos: Int64
    /// Probes whose result did not hold the next higher rendition: in all, and in a row on the
    /// current rendition (which spaces the next one out).
    public private(set) var probesFailed = 0
    public private(set) var probesFailedInARow = 0
    private var upCandidateSinceNanos: Int64?
    /// When the viewer arrived on the current rendition, and when the last probe was asked for.
    private var arrivedNanos: Int64?
    private var lastProbeNanos: Int64?
    private var lastUpSwitchNanos: Int64?
    private var keyFrameRequestedNanos: Int64?
    private var lastAccountedNanos: Int64?
    private var lastForwardedPtsNanos: Int64?
    /// The current rendition's measured rate: delta frames' bytes and frame counts since
    /// `windowStartNanos`, and the last full window's rate (delta frames' bytes per frame × frames).
    private var windowBytes = 0
    private var windowFrames = 0
    private var windowDeltaFrames = 0
    private var windowStartNanos: Int64?
    public private(set) var measuredBitsPerSecond: Int?
    static let measureWindowNanos: Int64 = 1_000_000_000

    public init(bitrates: [Int], settings: Settings = Settings()) {
        self.bitrates = bitrates.isEmpty ? [0] : bitrates
        self.settings = settings
        nanosOnRendition = Array(repeating: 0, count: self.bitrates.count)
        upHoldNanos = settings.upHoldNanos
    }

    /// A new estimate (transport-cc or REMB). Returns the rendition to ask for a key frame, when a
    /// switch was decided now or its key frame is overdue.
    public mutating func observe(estimateBitsPerSecond estimate: Int, nowNanos: Int64) -> Int? {
        account(nowNanos: nowNanos)
        let estimate = Double(estimate)
        let (bitrates, downFactor, current, measured) = (self.bitrates, settings.downFactor, self.current, measuredBitsPerSecond)
        let fitsDown: (Int) -> Bool = { index in
            let bitrate = index == current ? min(bitrates[index], measured ?? bitrates[index]) : bitrates[index]
            return estimate >= Double(bitrate) * downFactor
        }
        var wanted = target ?? current
        if !fitsDown(current) || (target.map { $0 < current && !fitsDown($0) } ?? false) {
            upCandidateSinceNanos = nil
            wanted = (current + 1 ..< bitrates.count).first(where: fitsDown) ?? bitrates.count - 1
            if wanted == current { target = nil }
        } else if !settings.upRequiresProbe, target == nil, current > 0, estimate >= Double(bitrates[current - 1]) * settings.upFactor {
            let since = upCandidateSinceNanos ?? nowNanos
            upCandidateSinceNanos = since
            if nowNanos - since >= upHoldNanos {
                wanted = current - 1
                upCandidateSinceNanos = nil
            }
        } else if target == nil {
            upCandidateSinceNanos = nil
        }
        guard wanted != current else { return nil }
        if wanted != target {
            target = wanted
            keyFrameRequestedNanos = nowNanos
            return wanted
        }
        if let asked = keyFrameRequestedNanos, nowNanos - asked >= settings.keyFrameRetryNanos {
            keyFrameRequestedNanos = nowNanos
            return wanted
        }
        return nil
    }

    /// The rate to probe at now (see ``Settings/upRequiresProbe``), nil when no probe is due: on the
    /// top rendition, while a switch waits for its key frame, or within the interval.
    public mutating func wantsProbe(nowNanos: Int64) -> Int? {
        guard settings.upRequiresProbe, current > 0, target == nil else { return nil }
        let arrived = arrivedNanos ?? nowNanos
        arrivedNanos = arrived
        let interval = probeIntervalNanos
        guard nowNanos - max(arrived, lastProbeNanos ?? arrived) >= interval else { return nil }
        lastProbeNanos = nowNanos
        return Int(Double(bitrates[current - 1]) * settings.probeRateFactor)
    }

    /// The wait between probes now: the base interval, longer by the hold's growth after failed
    /// up-switches, doubled for each probe after the first that failed in a row, at most the
    /// maximum (unless the hold's growth alone is longer).
    var probeIntervalNanos: Int64 {
        let base = settings.probeIntervalNanos * max(1, upHoldNanos / max(1, settings.upHoldNanos))
        let ceiling = max(base, settings.maximumProbeIntervalNanos)
        let doublings = max(0, probesFailedInARow - 1)
        return doublings >= 16 ? ceiling : min(base << Int64(doublings), ceiling)
    }

    /// A probe's result. Returns the rendition to ask for a key frame when it holds the next higher one.
    public mutating func observe(probeBitsPerSecond probe: Int, nowNanos: Int64) -> Int? {
        account(nowNanos: nowNanos)
        guard settings.upRequiresProbe, current > 0, target == nil else { return nil }
        guard Double(probe) >= Double(bitrates[current - 1]) * settings.probeSuccessFactor else {
            probesFailed += 1
            probesFailedInARow += 1
            return nil
        }
        target = current - 1
        keyFrameRequestedNanos = nowNanos
        return current - 1
    }

    /// Whether to forward a frame of `rendition`: the current one's frames, and the target's from
    /// its first key frame on, which makes it current. That key frame must not be older than the
    /// last forwarded frame (RTP time never steps back); it may be of the same capture instant (the
    /// renditions' encoders finish the same picture in any order): the sender then moves its RTP
    /// time one tick on.
    public mutating func admits(rendition: Int, isKeyFrame: Bool, ptsNanos: Int64, sizeBytes: Int = 0, nowNanos: Int64) -> Bool {
        if let target, rendition == target, isKeyFrame, ptsNanos >= lastForwardedPtsNanos ?? .min {
            account(nowNanos: nowNanos)
            if target < current {
                lastUpSwitchNanos = nowNanos
            } else if let up = lastUpSwitchNanos, nowNanos - up < settings.failedUpWindowNanos {
                upHoldNanos = min(upHoldNanos * 2, settings.maximumUpHoldNanos)
            }
            current = target
            self.target = nil
            arrivedNanos = nowNanos
            lastProbeNanos = nil
            probesFailedInARow = 0
            keyFrameRequestedNanos = nil
            switches += 1
            measuredBitsPerSecond = nil
            windowStartNanos = nil
        }
        guard rendition == current else { return false }
        if settings.dropCurrentWhileSwitchingDown, let target, target > current { return false }
        lastForwardedPtsNanos = ptsNanos
        measure(sizeBytes: sizeBytes, isKeyFrame: isKeyFrame, nowNanos: nowNanos)
        return true
    }

    private mutating func measure(sizeBytes: Int, isKeyFrame: Bool, nowNanos: Int64) {
        if let start = windowStartNanos, nowNanos - start >= Self.measureWindowNanos {
            if windowBytes > 0, windowDeltaFrames > 0 {
                let perFrame = Double(windowBytes) / Double(windowDeltaFrames)
                measuredBitsPerSecond = Int(perFrame * Double(windowFrames) * 8 * 1e9 / Double(nowNanos - start))
            }
            windowStartNanos = nil
        }
        if windowStartNanos == nil {
            windowStartNanos = nowNanos
            (windowBytes, windowFrames, windowDeltaFrames) = (0, 0, 0)
        }
        windowFrames += 1
        if !isKeyFrame {
            windowDeltaFrames += 1
            windowBytes += sizeBytes
        }
    }

    private mutating func account(nowNanos: Int64) {
        if let last = lastAccountedNanos, nowNanos > last { nanosOnRendition[current] += nowNanos - last }
        lastAccountedNanos = max(nowNanos, lastAccountedNanos ?? nowNanos)
    }

    /// Brings the time on the current rendition up to `nowNanos` (for statistics).
    public mutating func accountTime(nowNanos: Int64) { account(nowNanos: nowNanos) }
}
