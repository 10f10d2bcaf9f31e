/// Keeps an audio device's sample clock on the capture clock (CLOCK_MONOTONIC, which video frames
/// are stamped on): a PI loop that measures the skew between them and says how many sample frames
/// to insert (or drop) per frame received, in small steps, so the audio timestamps (which count
/// samples) follow the video.
///
/// Input, once per chunk: the media time the samples counted so far imply (`frames / rate`, `r`)
/// and the capture-clock time elapsed (`t`), both since the timeline began. The source's skew is
/// `r − t` (negative when the device runs slow); adding the frames the loop has had inserted so
/// far, `∫c dr` (a corrector applies `c` per frame received), gives the skew left in the
/// timestamps, `e`, and the loop answers
///
///     c = −(2ω·e + I),   dI/dt = ω²·e,   ω = 1 / timeConstant
///
/// With the device off by a constant `d` (`r = (1 + d)·t`; −0.001 for 0.1 % slow),
/// `de/dt = d + c·(1 + d)`, so `e″ + 2ω(1 + d)·e′ + ω²(1 + d)·e = 0`: critically damped (to within
/// `d`), it settles without overshoot or oscillation, `e` on zero and `I` on `d / (1 + d)`, from
/// which ``driftPPM`` gives `d`. Started with `I = 0` against a drift `d`, `e` peaks at about
/// `|d|·timeConstant/ℯ` (1.5 ms for 0.1 % with 4 s) after one time constant.
/// The correction is clamped to ±``Tuning/maximumCorrection``; `I` is clamped there too, so it
/// cannot wind up. Skew and drift are computed in seconds as Double: after 24 h, 86 400 s holds
/// 1e-11 s resolution. Socket-free and clock-free: tests drive it with a synthetic clock.
public struct AudioClockControl: Sendable {
    public struct Tuning: Sendable, Equatable {
        /// How fast a skew is worked off; longer is smoother, shorter keeps the start transient smaller.
        public var timeConstantSeconds: Double
        /// Largest correction, as a fraction of the sample rate (0.02: one frame in fifty).
        public var maximumCorrection: Double
        /// When false the loop only measures: it runs as if it corrected (so ``driftPPM`` is
        /// measured the same way), but ``correction`` stays 0 and the skew grows with the drift.
        public var correcting: Bool

        public init(timeConstantSeconds: Double = 4, maximumCorrection: Double = 0.02, correcting: Bool = true) {
            self.timeConstantSeconds = timeConstantSeconds
            self.maximumCorrection = maximumCorrection
            self.correcting = correcting
        }
    }

    public let tuning: Tuning
    /// The loop's integral: frames to drop per frame received to hold the device (`d / (1 + d)`).
    public private(set) var integral = 0.0
    /// The source's own skew, before correction, seconds.
    public private(set) var sourceSkewSeconds = 0.0
    /// The loop's correction, a fraction, and what it has added up to, `∫c dr` in seconds.
    private var loopCorrection = 0.0
    private var correctedSeconds = 0.0
    private var last: (received: Double, elapsed: Double)?

    public init(tuning: Tuning = Tuning()) { self.tuning = tuning }

    /// The device's drift in parts per million (negative: its samples come slower than the clock).
    public var driftPPM: Double { integral / (1 - integral) * 1e6 }
    /// Sample frames to insert per frame received (negative: drop), what the audio should follow now.
    public var correction: Double { tuning.correcting ? loopCorrection : 0 }
    public var correctionPPM: Double { correction * 1e6 }
    /// The skew left in the audio timestamps, seconds: the source's skew plus what was corrected.
    public var skewSeconds: Double { tuning.correcting ? loopSkewSeconds : sourceSkewSeconds }
    private var loopSkewSeconds: Double { sourceSkewSeconds + correctedSeconds }

    /// Takes the media time the samples received imply (`receivedSeconds`) at `elapsedSeconds` on
    /// the capture clock, both since the timeline began, and updates ``correction``.
    public mutating func update(receivedSeconds: Double, elapsedSeconds: Double) {
        let previous = last ?? (receivedSeconds, elapsedSeconds)
        last = (receivedSeconds, elapsedSeconds)
        correctedSeconds += loopCorrection * (receivedSeconds - previous.received)
        sourceSkewSeconds = receivedSeconds - elapsedSeconds
        let omega = 1 / tuning.timeConstantSeconds
        let limit = tuning.maximumCorrection
        let step = max(0, elapsedSeconds - previous.elapsed)
        integral = min(limit, max(-limit, integral + omega * omega * loopSkewSeconds * step))
        loopCorrection = min(limit, max(-limit, -(2 * omega * loopSkewSeconds + integral)))
    }

    /// Starts a new timeline (capture paused and resumed: the encoder places the next chunk at its
    /// capture time, so no skew is left). The drift measured so far is the device's and stays.
    public mutating func restartTimeline() {
        (correctedSeconds, sourceSkewSeconds, last) = (0, 0, nil)
        loopCorrection = -integral
    }
}
