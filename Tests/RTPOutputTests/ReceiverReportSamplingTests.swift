import Output
import RTP
@testable import RTPOutput
import Testing

/// The media a receiver does not owe yet is that of its own report interval: 2 s for WebRTC
/// receivers, up to ~6.2 s for a plain RTP receiver keeping RFC 3550's 5 s minimum.
@Suite struct ReceiverReportSamplingTests {
    /// A sender of 5 packets (1000 bytes each) per 500 ms sample, and a receiver reporting the
    /// newest packet it has, the gaps between reports (in samples) taken in turn from `reportEverySamples`, while it reports at all.
    struct Link {
        var ledger = ReceiverReportLedger()
        var sampling = ReceiverReportSampling()
        var health = DeliveryHealth(settings: .init(stallTimeoutSeconds: 5), evidence: ReceiverReportSampling.receiverReportEvidence)
        var sequenceNumber: UInt16 = 65_000
        var nowNanos: Int64 = 1_000_000_000
        var sample = 0
        var nextReport = 0
        var gapIndex = 0

        init() { health.connected(nowNanos: nowNanos) }

        /// `samples` samples; the states seen after each.
        mutating func run(samples: Int, reportEverySamples: [Int]?) -> [DeliveryHealth.State] {
            var states: [DeliveryHealth.State] = []
            for _ in 0..<samples {
                for _ in 0..<5 {
                    ledger.recordSent(sequenceNumber: sequenceNumber, bytes: 1000)
                    sequenceNumber &+= 1
                }
                sample += 1
                if let gaps = reportEverySamples, sample >= nextReport {
                    ledger.acknowledge(extendedHighestSequenceNumber: UInt32(sequenceNumber &- 2))
                    nextReport = sample + gaps[gapIndex % gaps.count]
                    gapIndex += 1
                }
                nowNanos += 500_000_000
                health.observe(sampling.sample(ledger, nowNanos: nowNanos, framesDropped: 0))
                states.append(health.state)
            }
            return states
        }
    }

    @Test func aReceiverReportingEverySecondKeepsTheTwoSecondWindow() {
        var link = Link()
        let states = link.run(samples: 40, reportEverySamples: [2])
        #expect(Set(states) == [.healthy])
        #expect(link.sampling.windowSamples == ReceiverReportSampling.windowSamples)
    }

    @Test func aReceiverReportingEveryFiveToSixSecondsIsHealthyOnceItsIntervalIsLearned() {
        var link = Link()
        // Gaps of 5, 5.5 and 6 s (RFC 3550's randomized interval at its 5 s minimum).
        let states = link.run(samples: 80, reportEverySamples: [10, 11, 12])
        let learned = link.sampling.longestReportGapSamples
        #expect(learned >= 10 && learned <= 12, "\(learned)")
        // The first gap is longer than the 2 s window it starts with; from the second report on, healthy.
        #expect(Set(states.dropFirst(30)) == [.healthy], "\(states)")
        #expect(!states.contains(.stalled), "\(states)")

        // The receiver goes silent: stalled once the learned window and the timeout have passed.
        let silent = link.run(samples: 40, reportEverySamples: nil)
        let stalledAfter = silent.firstIndex(of: .stalled).map { Double($0 + 1) / 2 }
        #expect(stalledAfter != nil, "\(silent)")
        if let stalledAfter {
            // The last report came up to 6 s before the silence began; the window's media was not owed.
            #expect(stalledAfter > 2.5 && stalledAfter <= 5.5 + Double(link.sampling.windowSamples) / 2, "stalled \(stalledAfter) s into the silence")
        }
    }
}
