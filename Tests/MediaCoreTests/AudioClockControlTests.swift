import MediaCore
import Testing

/// ``AudioClockControl`` driven by a synthetic clock: a source off by `drift` delivers
/// `(1 + drift)·t` seconds of samples by capture time `t`, whose reading has jitter; fed every
/// `step` seconds, as the audio thread feeds it every chunk.
@Suite struct AudioClockControlTests {
    /// A deterministic ±`amplitude` jitter (ALSA's capture times wobble by a scheduling delay).
    struct Jitter {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let amplitude: Double
        mutating func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Double(state >> 11) / Double(1 << 53) * 2 - 1) * amplitude
        }
    }

    /// A source and the capture clock, from the timeline's start.
    struct Simulation {
        var elapsed = 0.0
        var received = 0.0
        var noise: Jitter

        init(jitter: Double = 0) { noise = Jitter(amplitude: jitter) }

        /// Runs the loop for `seconds` against a source off by `drift`; returns the skews it left, one per step.
        mutating func run(_ control: inout AudioClockControl, drift: Double, seconds: Double, step: Double) -> [Double] {
            var skews: [Double] = []
            skews.reserveCapacity(Int(seconds / step) + 1)
            let end = elapsed + seconds
            while elapsed <= end {
                control.update(receivedSeconds: received, elapsedSeconds: elapsed + noise.next())
                skews.append(control.skewSeconds)
                elapsed += step
                received += step * (1 + drift)
            }
            return skews
        }
    }

    static func run(_ control: inout AudioClockControl, drift: Double, seconds: Double, step: Double, jitter: Double = 0) -> [Double] {
        var simulation = Simulation(jitter: jitter)
        return simulation.run(&control, drift: drift, seconds: seconds, step: step)
    }

    @Test func aSourcePointOnePercentSlowStaysInSyncForADay() {
        var control = AudioClockControl()
        let skews = Self.run(&control, drift: -0.001, seconds: 86_400, step: 0.1, jitter: 0.001)
        let worst = skews.map(abs).max() ?? .infinity
        #expect(worst < 0.005, "worst skew over 24 h: \(worst * 1e3) ms")
        let settled = skews.dropFirst(600).map(abs).max() ?? .infinity
        #expect(settled < 0.002, "after the first minute the skew stays within the jitter: \(settled * 1e3) ms")
        // 1 ms of jitter moves the integral by ω²·e·step a chunk: the drift shown wanders by a few tens of ppm.
        #expect(abs(control.driftPPM + 1000) < 50, "drift measured: \(control.driftPPM) ppm")
    }

    /// Critically damped: from the start transient the skew returns to zero without crossing it.
    @Test func convergesWithoutOvershootOrOscillation() {
        var control = AudioClockControl()
        let skews = Self.run(&control, drift: -0.001, seconds: 120, step: 0.01)
        let peak = skews.min() ?? 0
        // |d|·τ/ℯ: 0.001 × 4 s / 2.718 = 1.47 ms.
        #expect(abs(peak + 0.001_47) < 0.000_05, "peak skew \(peak * 1e3) ms")
        #expect(skews.allSatisfy { $0 <= 1e-9 }, "never overshoots past zero: \(skews.max() ?? 0)")
        let peakIndex = skews.firstIndex(of: peak) ?? 0
        let recovering = skews[peakIndex...]
        #expect(zip(recovering, recovering.dropFirst()).allSatisfy { $1 >= $0 - 1e-12 }, "returns monotonically")
        #expect(abs(skews.last ?? 1) < 1e-6)
        #expect(abs(control.driftPPM + 1000) < 0.01, "\(control.driftPPM) ppm")
        // Frames to insert per frame received: 0.001 / 0.999.
        #expect(abs(control.correctionPPM - 1001.001) < 0.01, "\(control.correctionPPM) ppm")
    }

    @Test func onePercentIsHeldWellUnderFortyMilliseconds() {
        var control = AudioClockControl()
        let skews = Self.run(&control, drift: 0.01, seconds: 60, step: 0.01, jitter: 0.002)
        let worst = skews.map(abs).max() ?? .infinity
        #expect(worst < 0.020, "worst skew at 1 % drift: \(worst * 1e3) ms")
        #expect(abs(control.driftPPM - 10_000) < 100, "\(control.driftPPM) ppm")
    }

    /// With correction off the loop still measures the drift, and the skew is the source's own.
    @Test func measuringOnlyLetsTheSkewGrowAndStillMeasuresTheDrift() {
        var control = AudioClockControl(tuning: AudioClockControl.Tuning(correcting: false))
        _ = Self.run(&control, drift: -0.001, seconds: 600, step: 0.01, jitter: 0.001)
        #expect(control.correction == 0)
        #expect(abs(control.skewSeconds + 0.6) < 0.002, "10 min at 0.1 % slow: \(control.skewSeconds) s")
        #expect(abs(control.driftPPM + 1000) < 50, "\(control.driftPPM) ppm")
    }

    /// After a pause the timeline starts again, and the drift already measured holds the skew at
    /// zero from the first chunk.
    @Test func aRestartedTimelineKeepsTheMeasuredDrift() {
        var control = AudioClockControl()
        _ = Self.run(&control, drift: -0.001, seconds: 300, step: 0.01)
        control.restartTimeline()
        #expect(abs(control.correctionPPM - 1001) < 1)
        let skews = Self.run(&control, drift: -0.001, seconds: 60, step: 0.01)
        #expect((skews.map(abs).max() ?? 1) < 0.000_01)
    }

    /// A source further off than the loop may correct: the correction and the integral stop at the limit.
    @Test func theCorrectionIsClampedAndTheIntegralDoesNotWindUp() {
        var control = AudioClockControl(tuning: AudioClockControl.Tuning(maximumCorrection: 0.02))
        var simulation = Simulation()
        _ = simulation.run(&control, drift: -0.05, seconds: 60, step: 0.01)
        #expect(control.correction == 0.02)
        #expect(control.integral == -0.02)
        // The source comes back within reach: the skew it built up (about 1.8 s) is worked off at
        // the limit, and the loop settles on the new drift.
        let skews = simulation.run(&control, drift: -0.001, seconds: 600, step: 0.01)
        #expect(abs(skews.last ?? 1) < 0.001, "\((skews.last ?? 1) * 1e3) ms")
        #expect(abs(control.driftPPM + 1000) < 10, "\(control.driftPPM) ppm")
    }
}
