import Codec
import NIOCore
import RTP
import Testing
import WebRTCTransport

extension WebRTCMediaSenderTests {
    /// With transport-cc the pacer spreads a key frame over its 5 ms steps at 2.5 × the estimate
    /// (2.5 Mbit/s at the start: 6.25 Mbit/s, about 3.9 kB a step) instead of one burst, and every
    /// packet's transport-wide send time is when it left.
    @Test func aKeyFrameLeavesPacedAndEachPacketsSendTimeIsWhenItLeft() throws {
        let (sender, wire, peerIn, _) = try Self.make(rtx: true, transportWideID: 5)
        let ms: Int64 = 1_000_000
        sender.send(Self.frame(ptsNanos: 0, key: true, bytes: 60_000), nowNanos: 0)
        let atOnce = wire.datagrams.count
        #expect(atOnce >= 3 && atOnce <= 5, "one step's budget at once, not the frame: \(atOnce)")
        var step: Int64 = 0
        var leftAt: [Int64] = Array(repeating: 0, count: atOnce)
        while sender.nextPacingNanos(nowNanos: step * ms) != nil, step < 1000 {
            step += 5
            let before = wire.datagrams.count
            sender.pace(nowNanos: step * ms)
            leftAt += Array(repeating: step * ms, count: wire.datagrams.count - before)
        }
        let packets = try Self.rtp(wire.datagrams, peerIn)
        #expect(packets.count == 52, "STAP-A + 51 FU-A of 1200 bytes")
        // 62 kB at 6.25 Mbit/s: about 80 ms.
        #expect(step >= 70 && step <= 90, "\(step) ms")
        let numbers = packets.compactMap { $0.header.headerExtension.flatMap { TransportWideSequenceNumber(in: $0, id: 5)?.value } }
        #expect(numbers == Array(0..<52))
    }

    /// Past the pacer's time bound (250 ms of video at the pacing rate) a delta frame is dropped, the
    /// owner is told once to ask for a key frame, later delta frames are held, and a key frame ends
    /// the hold; nothing dropped ever got a sequence number (the receiver sees no gap to NACK).
    @Test func pastTheQueuesTimeBoundDeltaFramesWaitForAKeyFrame() throws {
        let (sender, wire, peerIn, _) = try Self.make(rtx: true, transportWideID: 5)
        let ms: Int64 = 1_000_000
        // 250 kB at 6.25 Mbit/s (2.5 × the 2.5 Mbit/s start): 320 ms of queue.
        #expect(sender.send(Self.frame(ptsNanos: 0, key: true, bytes: 250_000), nowNanos: 0) == false)
        #expect(sender.send(Self.frame(ptsNanos: 33 * ms, key: false, bytes: 2000), nowNanos: 1 * ms) == true, "ask for a key frame")
        #expect(sender.send(Self.frame(ptsNanos: 66 * ms, key: false, bytes: 2000), nowNanos: 2 * ms) == false, "asked already")
        #expect(sender.send(Self.frame(ptsNanos: 99 * ms, key: true, bytes: 3000), nowNanos: 3 * ms) == false)
        #expect(sender.statistics.framesDroppedAtPacer == 1 && sender.statistics.framesHeldAtPacer == 1)
        var step: Int64 = 0
        while sender.nextPacingNanos(nowNanos: step * ms) != nil, step < 2000 {
            step += 5
            sender.pace(nowNanos: step * ms)
        }
        let packets = try Self.rtp(wire.datagrams, peerIn)
        let timestamps = Set(packets.map(\.header.timestamp))
        #expect(timestamps.count == 2, "the two key frames only")
        let sequence = packets.map(\.header.sequenceNumber)
        #expect(zip(sequence, sequence.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
    }
}

extension WebRTCMediaSenderTests {
    /// A probe cluster is RTX copies of the last video packets, transport-wide numbered, paced at
    /// the probe's rate; the peer's feedback about them, once it reaches a packet sent after the
    /// cluster, comes back as a probe result.
    @Test func aProbeSendsRTXPaddingAndItsFeedbackYieldsAProbeResult() throws {
        let (sender, wire, peerIn, peerOut) = try Self.make(rtx: true, transportWideID: 5)
        let ms: Int64 = 1_000_000
        #expect(!sender.startProbe(bitsPerSecond: 20_000_000, durationNanos: 100 * ms, nowNanos: 0), "no video to copy yet")
        sender.send(Self.frame(ptsNanos: 0, key: true, bytes: 3000), nowNanos: 0)
        var step: Int64 = 0
        while sender.nextPacingNanos(nowNanos: step * ms) != nil, step < 100 { step += 5; sender.pace(nowNanos: step * ms) }
        let video = try Self.rtp(wire.datagrams, peerIn)
        wire.datagrams.removeAll()

        // 20 Mbit/s for 10 ms: 25 kB, about 12.5 kB per 5 ms step.
        #expect(sender.startProbe(bitsPerSecond: 20_000_000, durationNanos: 10 * ms, nowNanos: 200 * ms))
        #expect(!sender.startProbe(bitsPerSecond: 20_000_000, durationNanos: 10 * ms, nowNanos: 200 * ms), "one cluster at a time")
        let atOnce = wire.datagrams.count
        step = 200
        while sender.nextPacingNanos(nowNanos: step * ms) != nil, step < 1000 { step += 5; sender.pace(nowNanos: step * ms) }
        let padding = try Self.rtp(wire.datagrams, peerIn)
        #expect(padding.count == sender.statistics.probePacketsSent && padding.count >= 20)
        #expect(atOnce < padding.count / 2 && step >= 205 && step <= 225, "paced, not one burst: \(atOnce) at once, done at \(step) ms")
        #expect(padding.allSatisfy { $0.header.ssrc == Self.rtxSSRC })
        let copies = try padding.map { try RTXPacketizer.unwrap($0, originalSSRC: Self.videoSSRC, originalPayloadType: 102) }
        #expect(copies.allSatisfy { copy in video.contains { $0.header.sequenceNumber == copy.header.sequenceNumber } })

        // A frame after the cluster: feedback that reaches it shows the whole cluster.
        sender.send(Self.frame(ptsNanos: 33 * ms, key: false, bytes: 500), nowNanos: 400 * ms)
        let after = wire.datagrams.count - padding.count
        #expect(after == 1)
        // Everything arrived 1 ms apart.
        let count = UInt16(video.count + padding.count + after)
        let feedback = try TransportWideCCFeedback(
            senderSSRC: Self.viewerSSRC, mediaSSRC: Self.videoSSRC, baseSequenceNumber: 0, packetStatusCount: count, referenceTime: 1,
            feedbackPacketCount: 0, chunks: [.runLength(status: .receivedSmallDelta, count: count)],
            receiveDeltas: Array(repeating: .small(4), count: Int(count)))
        let answer = sender.receiveRTCP(try Self.srtcp([.transportWideCC(feedback)], peerOut), nowNanos: 500 * ms)
        #expect((answer.probeBitsPerSecond ?? 0) > 0)
    }
}

extension WebRTCMediaSenderTests {
    /// Feedback that says "not received" about packets still waiting in the pacer (numbered when
    /// they joined it, overtaken since) does not count them lost; about packets that left before the
    /// newest one that arrived, it does.
    @Test func packetsStillInThePacerAreNotCountedLost() throws {
        let (sender, wire, _, peerOut) = try Self.make(rtx: true, transportWideID: 5)
        sender.send(Self.frame(ptsNanos: 0, key: true, bytes: 60_000), nowNanos: 0)
        let left = wire.datagrams.count
        #expect(left < 10)
        let waiting = UInt16(52 - left)
        let first = try TransportWideCCFeedback(
            senderSSRC: Self.viewerSSRC, mediaSSRC: Self.videoSSRC, baseSequenceNumber: 0, packetStatusCount: 52, referenceTime: 1,
            feedbackPacketCount: 0, chunks: [.runLength(status: .receivedSmallDelta, count: UInt16(left)), .runLength(status: .notReceived, count: waiting)],
            receiveDeltas: Array(repeating: .small(4), count: left))
        _ = sender.receiveRTCP(try Self.srtcp([.transportWideCC(first)], peerOut), nowNanos: 1_000_000)
        #expect(sender.statistics.feedbackLossFraction == 0)

        // Once all left: 20 reported lost among those before the last one that arrived.
        var step: Int64 = 0
        while sender.nextPacingNanos(nowNanos: step * 1_000_000) != nil, step < 1000 { step += 5; sender.pace(nowNanos: step * 1_000_000) }
        let second = try TransportWideCCFeedback(
            senderSSRC: Self.viewerSSRC, mediaSSRC: Self.videoSSRC, baseSequenceNumber: UInt16(left), packetStatusCount: waiting, referenceTime: 2,
            feedbackPacketCount: 1, chunks: [.runLength(status: .notReceived, count: 20), .runLength(status: .receivedSmallDelta, count: waiting - 20)],
            receiveDeltas: Array(repeating: .small(4), count: Int(waiting) - 20))
        _ = sender.receiveRTCP(try Self.srtcp([.transportWideCC(second)], peerOut), nowNanos: 500_000_000)
        #expect((sender.statistics.feedbackLossFraction ?? 0) > 0.3)
    }
}
