import Testing
@testable import CongestionControl

@Suite struct SendSideBandwidthEstimatorTests {
    /// Runs `intervals` feedback intervals; returns the estimate after each. With `followingUpTo`,
    /// the sender sends at the estimate, at most that much (an encoder the estimate drives).
    static func run(_ path: inout SimulatedPath, _ estimator: inout SendSideBandwidthEstimator, intervals: Int,
                    followingUpTo sourceBitsPerSecond: Int? = nil) -> [Int] {
        (0..<intervals).map { _ in
            let feedback = path.nextFeedback()
            let estimate = estimator.update(feedback: feedback, roundTripNanos: 40_000_000, nowNanos: path.nowNanos)
            if let sourceBitsPerSecond { path.sendBitsPerSecond = min(sourceBitsPerSecond, estimate) }
            return estimate
        }
    }

    @Test func aCapacityStepDownBringsTheEstimateBelowItWithinThreeSeconds() {
        // 2.5 Mbit/s of video on a 5 Mbit/s link, which then drops to 1 Mbit/s; the sender keeps
        // sending 2.5 Mbit/s (a rendition's fixed bitrate), so the queue overflows and loses too.
        var path = SimulatedPath(capacityBitsPerSecond: 5_000_000, sendBitsPerSecond: 2_500_000)
        var estimator = SendSideBandwidthEstimator(configuration: .init(initialBitsPerSecond: 3_000_000, maximumBitsPerSecond: 6_000_000))
        let before = Self.run(&path, &estimator, intervals: 50)
        #expect(before.last! >= 2_500_000, "no queue on a 5 Mbit/s link, yet the estimate fell: \(before)")
        path.capacityBitsPerSecond = 1_000_000
        let after = Self.run(&path, &estimator, intervals: 30)
        let firstBelow = after.firstIndex { $0 < 1_000_000 }
        #expect(firstBelow != nil, "the estimate never fell below the 1 Mbit/s capacity: \(after)")
        #expect(firstBelow.map { $0 < 30 } ?? false, "took more than 30 feedback intervals: \(after)")
        #expect(after.last! < 1_000_000, "\(after)")
    }

    @Test func aSenderThatFollowsTheEstimateSettlesBelowTheNewCapacity() {
        var path = SimulatedPath(capacityBitsPerSecond: 5_000_000, sendBitsPerSecond: 2_500_000)
        var estimator = SendSideBandwidthEstimator(configuration: .init(initialBitsPerSecond: 3_000_000, maximumBitsPerSecond: 6_000_000))
        _ = Self.run(&path, &estimator, intervals: 50, followingUpTo: 2_500_000)
        path.capacityBitsPerSecond = 1_000_000
        let after = Self.run(&path, &estimator, intervals: 150, followingUpTo: 2_500_000)
        let settled = after.suffix(50)
        #expect(settled.allSatisfy { $0 < 1_300_000 && $0 > 400_000 }, "did not settle near 1 Mbit/s: \(after)")
    }

    @Test func steadyCapacityWithoutQueuingLetsTheEstimateRise() {
        var path = SimulatedPath(capacityBitsPerSecond: 20_000_000, sendBitsPerSecond: 1_000_000)
        var estimator = SendSideBandwidthEstimator(configuration: .init(initialBitsPerSecond: 1_000_000, maximumBitsPerSecond: 10_000_000))
        let estimates = Self.run(&path, &estimator, intervals: 100)
        #expect(estimator.usage == .normal)
        // 8 % a second for 10 s is about 2.1×.
        #expect(estimates.last! > 1_800_000, "\(estimates)")
        #expect(zip(estimates, estimates.dropFirst()).allSatisfy { $0 <= $1 }, "the estimate fell without cause: \(estimates)")
    }

    @Test func lossAboveTenPercentLowersTheEstimate() {
        // Every fifth packet lost (20 %) on a link with room to spare: the delay-based part sees no queue.
        var path = SimulatedPath(capacityBitsPerSecond: 20_000_000, sendBitsPerSecond: 2_000_000, lossEvery: 5)
        var estimator = SendSideBandwidthEstimator(configuration: .init(initialBitsPerSecond: 2_000_000, maximumBitsPerSecond: 10_000_000))
        let estimates = Self.run(&path, &estimator, intervals: 20)
        #expect(estimator.lossFraction > 0.1)
        #expect(estimates.last! < 2_000_000, "\(estimates)")
        #expect(estimator.lossBasedBitsPerSecond < estimator.delayBasedBitsPerSecond)
    }

    @Test func lossBelowTwoPercentDoesNotLowerIt() {
        var path = SimulatedPath(capacityBitsPerSecond: 20_000_000, sendBitsPerSecond: 2_000_000, lossEvery: 100)
        var estimator = SendSideBandwidthEstimator(configuration: .init(initialBitsPerSecond: 2_000_000, maximumBitsPerSecond: 10_000_000))
        let estimates = Self.run(&path, &estimator, intervals: 30)
        #expect(estimates.min()! >= 2_000_000, "\(estimates)")
    }

    @Test func repeatedFeedbackIsJudgedOnce() {
        var estimator = SendSideBandwidthEstimator(configuration: .init(initialBitsPerSecond: 1_000_000, maximumBitsPerSecond: 2_000_000))
        let lost = (1...30).map { PacketFeedback(sequenceNumber: Int64($0), sendTimeNanos: Int64($0) * 1_000_000, sizeBytes: 1200, arrivalTimeNanos: nil) }
        estimator.update(feedback: lost, roundTripNanos: nil, nowNanos: 1_000_000_000)
        let once = estimator.bitsPerSecond
        estimator.update(feedback: lost, roundTripNanos: nil, nowNanos: 2_000_000_000)
        #expect(estimator.bitsPerSecond == once)
        #expect(estimator.feedbackCount == 1)
    }
}
