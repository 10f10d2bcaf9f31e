import Codec
import NIOCore
import RTP
import Testing
import WebRTCTransport

extension WebRTCMediaSenderTests {
    /// With transport-cc negotiated every packet — video (the orientation beside it on a frame's
    /// last packet), RTX and audio — carries the next transport-wide number, and the peer's feedback
    /// about them yields an estimate. Packets are numbered as they join the pacer and audio leaves
    /// first, so on the wire the numbers are each used once but not always in order.
    @Test func everyPacketCarriesTheNextTransportWideNumberAndFeedbackYieldsAnEstimate() throws {
        let (sender, wire, peerIn, peerOut) = try Self.make(rtx: true, orientationID: 3, audio: true, transportWideID: 5)
        #expect(sender.usesTransportWideCC)
        sender.send(Self.frame(ptsNanos: 0, key: true, rotation: .clockwise90), nowNanos: 0)
        sender.send(EncodedAudioFrame(codec: .opus, data: [0xFC, 0xFF, 0xFE], ptsNanos: 0, sampleCount: 960, durationNanos: 20_000_000), nowNanos: 1)
        for step in 1...20 { sender.pace(nowNanos: Int64(step) * 5_000_000) }
        let first = try Self.rtp(wire.datagrams, peerIn)
        let video = first.filter { $0.header.ssrc == Self.videoSSRC }
        let sentBefore = wire.datagrams.count
        let nack = try GenericNACK(senderSSRC: Self.viewerSSRC, mediaSSRC: Self.videoSSRC, lostSequenceNumbers: [video[0].header.sequenceNumber])
        _ = sender.receiveRTCP(try Self.srtcp([.genericNACK(nack)], peerOut), nowNanos: 200_000_000)
        for step in 41...60 { sender.pace(nowNanos: Int64(step) * 5_000_000) }

        let packets = first + (try Self.rtp(Array(wire.datagrams[sentBefore...]), peerIn))
        let numbers = packets.compactMap { $0.header.headerExtension.flatMap { TransportWideSequenceNumber(in: $0, id: 5)?.value } }
        #expect(numbers.sorted() == Array(0..<UInt16(packets.count)), "one number per packet: \(numbers)")
        #expect(Set(packets.map(\.header.ssrc)) == [Self.videoSSRC, Self.audioSSRC, Self.rtxSSRC])
        let last = try #require(video.last?.header.headerExtension)
        #expect(last.element(id: 3).map { Array($0.readableBytesView) } == [VideoOrientation(rotation: .degrees90).byte])

        // All arrived 1 ms apart.
        let count = UInt16(packets.count)
        let feedback = try TransportWideCCFeedback(
            senderSSRC: Self.viewerSSRC, mediaSSRC: Self.videoSSRC, baseSequenceNumber: 0, packetStatusCount: count, referenceTime: 1,
            feedbackPacketCount: 0, chunks: [.runLength(status: .receivedSmallDelta, count: count)],
            receiveDeltas: Array(repeating: .small(4), count: Int(count)))
        let answer = sender.receiveRTCP(try Self.srtcp([.transportWideCC(feedback)], peerOut), nowNanos: 400_000_000)
        #expect(answer.bandwidthEstimateBitsPerSecond != nil)
        #expect(sender.statistics.transportFeedbackReceived == 1)
        #expect(sender.statistics.bandwidthEstimateBitsPerSecond == answer.bandwidthEstimateBitsPerSecond)
    }

    /// Feedback showing every packet sent over a second lost (a link that went down) asks for a key
    /// frame, once, whether or not the peer's own request got through; a shorter run of loss (a
    /// congested queue) leaves that to the peer's NACK and PLI.
    @Test(arguments: [(39, true), (20, false)]) func feedbackShowingALinkOutageAsksForAKeyFrame(lostFrames: Int, outage: Bool) throws {
        let (sender, wire, _, peerOut) = try Self.make(transportWideID: 5)
        sender.send(Self.frame(ptsNanos: 0, key: true), nowNanos: 0)
        let keyPackets = UInt16(wire.datagrams.count)
        let frameNanos: Int64 = 33_333_333
        for index in 1...40 { sender.send(Self.frame(ptsNanos: Int64(index) * frameNanos, key: false), nowNanos: Int64(index) * frameNanos) }
        let lost = UInt16(lostFrames), arrivedAfter = UInt16(40 - lostFrames)
        func feedback(_ count: Int) throws -> ByteBuffer {  // count: the feedback packet count
            let report = try TransportWideCCFeedback(
                senderSSRC: Self.viewerSSRC, mediaSSRC: Self.videoSSRC, baseSequenceNumber: 0, packetStatusCount: keyPackets + 40,
                referenceTime: 1, feedbackPacketCount: UInt8(count),
                chunks: [.runLength(status: .receivedSmallDelta, count: keyPackets), .runLength(status: .notReceived, count: lost),
                         .runLength(status: .receivedSmallDelta, count: arrivedAfter)],
                receiveDeltas: Array(repeating: .small(4), count: Int(keyPackets + arrivedAfter)))
            return try Self.srtcp([.transportWideCC(report)], peerOut)
        }
        let answer = sender.receiveRTCP(try feedback(0), nowNanos: 1_400_000_000)
        #expect(answer.requestKeyFrame == outage)
        #expect(sender.statistics.transportOutages == (outage ? 1 : 0))
    }

    /// Packets still waiting in the pacer, reported not received after a short run of loss, are no
    /// outage: they were never sent, so the run of loss is still 5 frames (166 ms) long.
    @Test func packetsStillInThePacerMakeNoOutage() throws {
        let (sender, wire, _, peerOut) = try Self.make(transportWideID: 5)
        sender.send(Self.frame(ptsNanos: 0, key: true), nowNanos: 0)
        let keyPackets = UInt16(wire.datagrams.count)
        let frameNanos: Int64 = 33_333_333
        for index in 1...10 { sender.send(Self.frame(ptsNanos: Int64(index) * frameNanos, key: false), nowNanos: Int64(index) * frameNanos) }
        let sentBefore = wire.datagrams.count
        // A 60 kB key frame: one step's budget leaves, the rest waits in the pacer (no tick runs).
        sender.send(Self.frame(ptsNanos: 11 * frameNanos, key: true, bytes: 60_000), nowNanos: 11 * frameNanos)
        #expect(wire.datagrams.count - sentBefore < 10, "most of the key frame waits in the pacer")
        let waiting: UInt16 = 60
        let report = try TransportWideCCFeedback(
            senderSSRC: Self.viewerSSRC, mediaSSRC: Self.videoSSRC, baseSequenceNumber: 0, packetStatusCount: keyPackets + 10 + waiting,
            referenceTime: 1, feedbackPacketCount: 0,
            chunks: [.runLength(status: .receivedSmallDelta, count: keyPackets + 5), .runLength(status: .notReceived, count: 5 + waiting)],
            receiveDeltas: Array(repeating: .small(4), count: Int(keyPackets + 5)))
        let answer = sender.receiveRTCP(try Self.srtcp([.transportWideCC(report)], peerOut), nowNanos: 12 * frameNanos)
        #expect(!answer.requestKeyFrame && sender.statistics.transportOutages == 0)
    }

    @Test func withoutTransportWideCCPacketsCarryNoNumber() throws {
        let (sender, wire, peerIn, _) = try Self.make()
        #expect(!sender.usesTransportWideCC)
        sender.send(Self.frame(ptsNanos: 0, key: true), nowNanos: 0)
        #expect(try Self.rtp(wire.datagrams, peerIn).allSatisfy { $0.header.headerExtension == nil })
        #expect(sender.statistics.bandwidthEstimateBitsPerSecond == nil)
    }
}
