import Testing
@testable import Codec

@Suite struct CPUOveruseDetectorTests {
    static let interval: Int64 = 16_666_667  // 60 fps
    static let second: Int64 = 1_000_000_000

    /// Feeds `seconds` of 60 fps frames, each taking `encodeMillis`, with `dropsPerSecond` queue
    /// drops; returns each decision that was not `hold`, with its time in seconds.
    struct Run {
        var detector: CPUOveruseDetector
        var nowNanos: Int64 = 0
        var drops = 0
        var canStepUp = true

        init(upAfterSeconds: Double = 10) { detector = CPUOveruseDetector(upAfterSeconds: upAfterSeconds) }

        mutating func feed(seconds: Double, encodeMillis: Double, dropsPerSecond: Int = 0) -> [(Double, CPUOveruseDetector.Decision)] {
            var decisions: [(Double, CPUOveruseDetector.Decision)] = []
            let frames = Int((seconds * 60).rounded())
            for index in 0..<frames {
                nowNanos += interval
                if dropsPerSecond > 0, index % max(1, 60 / dropsPerSecond) == 0 { drops += 1 }
                detector.record(encodeNanos: Int64(encodeMillis * 1e6), totalDroppedFrames: drops)
                let decision = detector.evaluate(nowNanos: nowNanos, frameIntervalNanos: interval, canStepDown: true, canStepUp: canStepUp)
                if decision != .hold { decisions.append((Double(nowNanos) / 1e9, decision)) }
            }
            return decisions
        }
    }

    static func isDown(_ decision: CPUOveruseDetector.Decision) -> Bool { if case .stepDown = decision { true } else { false } }
    static func isUp(_ decision: CPUOveruseDetector.Decision) -> Bool { if case .stepUp = decision { true } else { false } }

    @Test func overuseInTwoPeriodsInARowStepsDown() throws {
        var run = Run()
        let decisions = run.feed(seconds: 3.5, encodeMillis: 38)
        let first = try #require(decisions.first)
        #expect(Self.isDown(first.1))
        // The first call starts the first period; two full periods later it steps.
        #expect(first.0 > 1.9 && first.0 < 2.2, "stepped at \(first.0) s")
        guard case let .stepDown(measurement) = first.1 else { return }
        #expect(measurement.description == "38 ms per frame against 16.7 ms")
        #expect(abs(measurement.usage - 2.28) < 0.01)
    }

    @Test func dropsAloneCountAsOveruse() {
        var run = Run()
        let decisions = run.feed(seconds: 3.5, encodeMillis: 5, dropsPerSecond: 10)
        #expect(decisions.count == 1 && Self.isDown(decisions[0].1))
        guard case let .stepDown(measurement)? = decisions.first?.1 else { return }
        #expect(measurement.description.hasSuffix("frames dropped"), "\(measurement)")
    }

    @Test func anOccasionalDropAtHighUsageHolds() {
        var run = Run(upAfterSeconds: 2)
        // 2 of 60 frames a second is under the 5 % share: a busy rung that still keeps up.
        #expect(run.feed(seconds: 10, encodeMillis: 13, dropsPerSecond: 2).isEmpty)
    }

    @Test func theFirstPeriodAfterAStepIsNotJudged() {
        var run = Run()
        let decisions = run.feed(seconds: 8.5, encodeMillis: 38)
        // Steps at ~2 s, then skips one period and needs two more: ~5 s, ~8 s.
        #expect(decisions.map { Int($0.0.rounded()) } == [2, 5, 8])
        #expect(decisions.allSatisfy { Self.isDown($0.1) })
    }

    @Test func usageBetweenTheThresholdsHolds() {
        var run = Run(upAfterSeconds: 2)
        #expect(run.feed(seconds: 30, encodeMillis: 12).isEmpty, "70 % is neither overuse nor headroom")
    }

    @Test func oneOverusedPeriodAloneHolds() {
        var run = Run()
        // The first frame starts the first period: each feed below is then exactly one period.
        var decisions = run.feed(seconds: 1.0 / 60, encodeMillis: 12)
        decisions += run.feed(seconds: 1, encodeMillis: 38)
        decisions += run.feed(seconds: 1, encodeMillis: 12)
        decisions += run.feed(seconds: 1, encodeMillis: 38)
        decisions += run.feed(seconds: 1, encodeMillis: 12)
        #expect(decisions.isEmpty)
    }

    @Test func sustainedHeadroomStepsUpAfterTheWait() throws {
        var run = Run(upAfterSeconds: 10)
        let decisions = run.feed(seconds: 15, encodeMillis: 4)
        let first = try #require(decisions.first)
        #expect(Self.isUp(first.1))
        #expect(first.0 >= 10 && first.0 < 11.5, "stepped up at \(first.0) s")
        var top = Run(upAfterSeconds: 10)
        top.canStepUp = false
        #expect(top.feed(seconds: 30, encodeMillis: 4).isEmpty, "at the top rung there is nowhere to go")
    }

    @Test func aFailedStepUpDoublesTheNextWait() throws {
        var run = Run(upAfterSeconds: 5)
        let up = run.feed(seconds: 6, encodeMillis: 4)
        #expect(up.count == 1 && Self.isUp(up[0].1))
        // The rung above is too much: overuse right after the step up.
        let down = run.feed(seconds: 4, encodeMillis: 38)
        #expect(down.count == 1 && Self.isDown(down[0].1))
        #expect(run.detector.backoff == 2)
        let start = Double(run.nowNanos) / 1e9
        let again = try #require(run.feed(seconds: 15, encodeMillis: 4).first)
        #expect(Self.isUp(again.1))
        #expect(again.0 - start >= 10, "waited \(again.0 - start) s: twice the 5 s")
    }
}

@Suite struct CPUAdaptationTests {
    @Test func stepsDownTheLadderAndThinsFramesAtALowerRate() throws {
        // min_size at the configured size: the only rungs are frame rates.
        var adaptation = CPUAdaptation(width: 640, height: 360, framesPerSecond: 60,
                                       settings: CPUAdaptationSettings(minimumWidth: 640, minimumHeight: 360, minimumFramesPerSecond: 30))
        #expect(adaptation.ladder.rungs.map(\.description) == ["640x360@60", "640x360@30"])
        var now: Int64 = 0
        var steps: [CPUAdaptation.Step] = []
        for _ in 0..<(60 * 3) {
            now += CPUOveruseDetectorTests.interval
            if let step = adaptation.afterFrame(encodeNanos: 30_000_000, totalDroppedFrames: 0, nowNanos: now) { steps.append(step) }
        }
        let step = try #require(steps.first)
        #expect(steps.count == 1, "at the floor it holds: \(steps)")
        #expect(step.description == "encoder overloaded: 30 ms per frame against 16.7 ms; stepping 640x360@60 → 640x360@30")
        #expect(adaptation.status.rung.description == "640x360@30" && adaptation.status.rungIndex == 1)
        #expect(adaptation.status.stepsDown == 1 && adaptation.status.stepsUp == 0 && adaptation.status.lastReason == step.description)
        // 60 fps capture at the 30 fps rung: every other frame is encoded.
        let video = SyntheticVideo(width: 640, height: 360, framesPerSecond: 60)
        var kept = 0
        for number in 0..<60 where adaptation.keeps(try #require(try video.frame(number: number))) { kept += 1 }
        #expect(kept == 30 && adaptation.status.thinnedFrames == 30)
    }

    /// Settling, with a controlled clock: an encode whose cost follows its picture size, overloaded
    /// at 1080p30 (40 ms per 33.3 ms frame) and comfortable at 720p30 (17.8 ms, between the
    /// thresholds), steps down once and then holds for a minute: no further step either way.
    /// (`CPUOverloadTests` shows the wiring through a real process; this is the part whose outcome
    /// a machine's speed would otherwise decide.)
    @Test func aRungThatKeepsUpAfterAStepDownHolds() throws {
        var adaptation = CPUAdaptation(width: 1920, height: 1080, framesPerSecond: 30, settings: CPUAdaptationSettings(upAfterSeconds: 4))
        let top = Double(1920 * 1080), interval: Int64 = 33_333_333
        var now: Int64 = 0
        var steps: [CPUAdaptation.Step] = []
        for _ in 0..<(30 * 60) {
            now += interval
            let rung = adaptation.status.rung
            let encodeNanos = Int64(40_000_000 * Double(rung.width * rung.height) / top)
            if let step = adaptation.afterFrame(encodeNanos: encodeNanos, totalDroppedFrames: 0, nowNanos: now) { steps.append(step) }
        }
        #expect(steps.map(\.description) == ["encoder overloaded: 40 ms per frame against 33.3 ms; stepping 1920x1080@30 → 1280x720@30"],
                "one step down, then it holds: \(steps)")
        #expect(adaptation.status.rung.description == "1280x720@30" && !adaptation.detector.hasHeadroom)
    }
}
