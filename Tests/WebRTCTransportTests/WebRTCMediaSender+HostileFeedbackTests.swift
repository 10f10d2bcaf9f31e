import NIOCore
import RTP
import Testing
import TestSupport
import WebRTCTransport

extension WebRTCMediaSenderTests {
    /// A viewer's transport-cc feedback is network input: a broken or hostile peer can report any
    /// numbers, far ahead of or behind what was sent, duplicated, with arrival times that jump back
    /// and forth across the whole 24-bit reference range and deltas of either sign. Seeded random
    /// feedback of that kind, between frames that keep going out, never traps; the estimate stays
    /// within the estimator's bounds, and the sender keeps sending every frame it is given.
    @Test func hostileTransportFeedbackNeverTrapsAndKeepsTheEstimateInBounds() throws {
        let (sender, wire, _, peerOut) = try Self.make(rtx: true, transportWideID: 5)
        var generator = SplitMix64(seed: 0x7477_6363)
        let bounds = WebRTCMediaSender.Configuration().bandwidthEstimation
        let frameNanos: Int64 = 33_333_333
        var estimates = 0
        for index in 0..<600 {
            let now = Int64(index) * frameNanos
            sender.send(Self.frame(ptsNanos: now, key: index % 60 == 0), nowNanos: now)
            sender.pace(nowNanos: now + frameNanos / 2)
            guard index % 3 == 0 else { continue }
            let feedback = try Self.randomFeedback(using: &generator, sentAbout: UInt16(truncatingIfNeeded: wire.datagrams.count))
            let answer = sender.receiveRTCP(try Self.srtcp([.transportWideCC(feedback)], peerOut), nowNanos: now + frameNanos * 2 / 3)
            if let estimate = answer.bandwidthEstimateBitsPerSecond {
                estimates += 1
                #expect(bounds.minimumBitsPerSecond...bounds.maximumBitsPerSecond ~= estimate, "estimate \(estimate) after feedback \(index / 3)")
            }
        }
        #expect(estimates > 0, "some of the feedback must be taken")
        #expect(sender.statistics.transportFeedbackReceived == 200)
        #expect((sender.statistics.video?.framesSent ?? 0) > 500, "\(String(describing: sender.statistics.video))")
    }

    /// Valid feedback with random contents: a base number near what was sent or anywhere, up to 300
    /// statuses in run-length and status-vector chunks, any reference time, any small deltas and
    /// large ones of either sign.
    static func randomFeedback(using generator: inout SplitMix64, sentAbout sent: UInt16) throws -> TransportWideCCFeedback {
        let base = Bool.random(using: &generator) ? sent &- UInt16.random(in: 0...400, using: &generator) : UInt16.random(in: .min ... .max, using: &generator)
        var chunks: [TransportWideCCChunk] = [], statuses: [TransportWideCCPacketStatus] = []
        let all: [TransportWideCCPacketStatus] = [.notReceived, .receivedSmallDelta, .receivedLargeDelta, .receivedWithoutDelta]
        let described = Int.random(in: 1...300, using: &generator)
        while statuses.count < described {
            if Bool.random(using: &generator) {
                let status = all.randomElement(using: &generator)!, count = UInt16.random(in: 1...40, using: &generator)
                chunks.append(.runLength(status: status, count: count))
                statuses += Array(repeating: status, count: Int(count))
            } else {
                let run = (0..<7).map { _ in all.randomElement(using: &generator)! }
                chunks.append(.twoBitVector(run))
                statuses += run
            }
        }
        let deltas: [TransportWideCCReceiveDelta] = statuses.filter { $0 == .receivedSmallDelta || $0 == .receivedLargeDelta }.map { status in
            status == .receivedSmallDelta ? .small(UInt8.random(in: .min ... .max, using: &generator)) : .large(Int16.random(in: .min ... .max, using: &generator))
        }
        return try TransportWideCCFeedback(
            senderSSRC: viewerSSRC, mediaSSRC: videoSSRC, baseSequenceNumber: base, packetStatusCount: UInt16(statuses.count),
            referenceTime: Int32.random(in: -0x80_0000...0x7F_FFFF, using: &generator), feedbackPacketCount: UInt8.random(in: .min ... .max, using: &generator),
            chunks: chunks, receiveDeltas: deltas)
    }
}
