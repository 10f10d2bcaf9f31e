import Testing
@testable import CongestionControl

@Suite struct ProbeBitrateEstimatorTests {
    static let ms: Int64 = 1_000_000

    /// `count` packets of 1200 bytes sent `sendGapMicros` apart, arriving `arrivalGapMicros` apart
    /// (every `lostEvery`th lost); the last result.
    static func probe(count: Int, sendGapMicros: Int64, arrivalGapMicros: Int64, lostEvery: Int = 0, cluster: Int = 1,
                      into estimator: inout ProbeBitrateEstimator) -> Int? {
        var result: Int?
        for index in 0..<count {
            let lost = lostEvery > 0 && index % lostEvery == lostEvery - 1
            let packet = PacketFeedback(sequenceNumber: Int64(index), sendTimeNanos: Int64(index) * sendGapMicros * 1000, sizeBytes: 1200,
                                        arrivalTimeNanos: lost ? nil : 50 * ms + Int64(index) * arrivalGapMicros * 1000, probeClusterID: cluster)
            result = estimator.add(packet, clusterID: cluster) ?? result
        }
        return result
    }

    @Test func aLinkThatKeepsUpReportsTheSendRate() throws {
        var estimator = ProbeBitrateEstimator()
        // 1200 bytes every 3 ms: 3.2 Mbit/s, delivered as sent.
        let result = try #require(Self.probe(count: 60, sendGapMicros: 3000, arrivalGapMicros: 3000, into: &estimator))
        #expect(abs(result - 3_200_000) < 50_000)
    }

    @Test func aNarrowLinkReportsWhatItDelivered() throws {
        var estimator = ProbeBitrateEstimator()
        // Sent at 3.2 Mbit/s, spread to one packet per 9.6 ms (1 Mbit/s) by the bottleneck.
        let result = try #require(Self.probe(count: 60, sendGapMicros: 3000, arrivalGapMicros: 9600, into: &estimator))
        #expect(result > 900_000 && result < 1_000_000, "0.95 × 1 Mbit/s: \(result)")
    }

    @Test func tooFewPacketsGiveNothingAndClustersAreKeptApart() {
        var estimator = ProbeBitrateEstimator()
        #expect(Self.probe(count: ProbeBitrateEstimator.minimumPackets - 1, sendGapMicros: 3000, arrivalGapMicros: 3000, into: &estimator) == nil)
        // Another cluster does not mix in.
        let other = Self.probe(count: 30, sendGapMicros: 3000, arrivalGapMicros: 3000, cluster: 2, into: &estimator)
        #expect(other.map { abs($0 - 3_200_000) < 50_000 } == true, "\(String(describing: other))")
    }

    @Test func aClusterThatLostMuchIsScaledByTheShareThatArrived() throws {
        // One packet of three lost, the rest arriving as sent: not a link that holds 3.2 Mbit/s.
        var heavy = ProbeBitrateEstimator()
        let scaled = try #require(Self.probe(count: 60, sendGapMicros: 3000, arrivalGapMicros: 3000, lostEvery: 3, into: &heavy))
        #expect(scaled < 1_700_000, "\(scaled)")
        // One in twenty (5 %) lost: taken as it is.
        var light = ProbeBitrateEstimator()
        let kept = try #require(Self.probe(count: 60, sendGapMicros: 3000, arrivalGapMicros: 3000, lostEvery: 20, into: &light))
        #expect(kept > 2_900_000, "\(kept)")
    }

    @Test func theEstimatorRisesToAProbesResultOnceTheWholeClusterIsReported() {
        var estimator = SendSideBandwidthEstimator(configuration: .init(initialBitsPerSecond: 700_000, maximumBitsPerSecond: 5_000_000))
        var packets: [PacketFeedback] = []
        for index in 0..<60 {
            packets.append(PacketFeedback(sequenceNumber: Int64(index), sendTimeNanos: Int64(index) * 3 * Self.ms, sizeBytes: 1200,
                                          arrivalTimeNanos: 50 * Self.ms + Int64(index) * 3 * Self.ms, probeClusterID: 0))
        }
        _ = estimator.update(feedback: packets, roundTripNanos: nil, nowNanos: 300 * Self.ms)
        #expect(estimator.probeResults == 0, "the cluster may go on in the next feedback")
        let after = PacketFeedback(sequenceNumber: 60, sendTimeNanos: 200 * Self.ms, sizeBytes: 1200, arrivalTimeNanos: 250 * Self.ms)
        let estimate = estimator.update(feedback: [after], roundTripNanos: nil, nowNanos: 350 * Self.ms)
        #expect(estimator.probeResults == 1)
        #expect(estimate >= 3_000_000, "\(estimate)")
    }
}

extension ProbeBitrateEstimatorTests {
    /// A packet the receiver reported late (after packets numbered above it, as when it waited in
    /// the sender's pacer) is still judged; one reported twice is judged once.
    @Test func aLateReportedPacketIsJudgedOnceAndNotDroppedBehindAHighWaterMark() {
        var estimator = SendSideBandwidthEstimator(configuration: .init(initialBitsPerSecond: 1_000_000, maximumBitsPerSecond: 5_000_000))
        let packets = (0..<10).filter { $0 != 5 }.map {
            PacketFeedback(sequenceNumber: Int64($0), sendTimeNanos: Int64($0) * Self.ms, sizeBytes: 1200, arrivalTimeNanos: 50 * Self.ms + Int64($0) * Self.ms)
        }
        estimator.update(feedback: packets, roundTripNanos: nil, nowNanos: 100 * Self.ms)
        let late = PacketFeedback(sequenceNumber: 5, sendTimeNanos: 12 * Self.ms, sizeBytes: 1200, arrivalTimeNanos: 63 * Self.ms)
        estimator.update(feedback: [late], roundTripNanos: nil, nowNanos: 150 * Self.ms)
        #expect(estimator.feedbackCount == 2)
        estimator.update(feedback: [late], roundTripNanos: nil, nowNanos: 200 * Self.ms)
        #expect(estimator.feedbackCount == 2)
    }
}
