import Codec
import NIOCore
import RTP
import RTPOutput
import Testing

/// The one RTP send session plain RTP and WebRTC share, with no socket: what it hands to
/// `transmit` (and on which route) for frames, feedback and reports, and what it counts.
@Suite struct RTPSendSessionTests {
    static let audioSSRC: UInt32 = 0xCAFE_0002
    static let rtxSSRC: UInt32 = 0xCAFE_0003

    /// Collects what the session transmits, by route.
    final class Wire {
        var sent: [(datagram: ByteBuffer, route: RTPSendSession.Route)] = []

        func take() -> [(datagram: ByteBuffer, route: RTPSendSession.Route)] {
            defer { sent.removeAll() }
            return sent
        }

        /// The RTP packets taken, in order.
        func takePackets() throws -> [RTPPacket] {
            try take().map { entry in
                var datagram = entry.datagram
                return try RTPPacket(from: &datagram)
            }
        }
    }

    /// Plain RTP: no SRTP, video from the first frame, audio on its own routes; RTX when asked.
    static func session(wire: Wire, rtx: Bool = false) throws -> RTPSendSession {
        let audioPacketizer = try RTPPacketizer(ssrc: audioSSRC, payloadType: 97, payloader: OpusPayloader(maxPayloadSize: 1200),
                                                sequencer: RTPSequencer(start: 10), timestampOffset: 0)
        var configuration = RTPSendSession.Configuration()
        configuration.startsAtKeyFrame = false
        return try RTPSendSession(
            video: try RTPSenderSessionTests.session(),
            audio: RTPSenderSession(packetizer: audioPacketizer, cname: "test", historyCapacity: 1),
            rtx: rtx ? try RTXPacketizer(ssrc: rtxSSRC, payloadType: 98, sequencer: RTPSequencer(start: 500)) : nil,
            outbound: nil, inbound: nil, configuration: configuration) { datagram, route in wire.sent.append((datagram, route)) }
    }

    static func nack(_ sequenceNumbers: [UInt16]) throws -> ByteBuffer {
        let nack = try GenericNACK(senderSSRC: RTPSenderSessionTests.receiverSSRC, mediaSSRC: RTPSenderSessionTests.ssrc,
                                   lostSequenceNumbers: sequenceNumbers)
        var bytes = ByteBuffer()
        RTCPCompoundPacket(packets: [.genericNACK(nack)]).write(to: &bytes)
        return bytes
    }

    @Test func framesGoOutOnTheirStreamsRoutesAndAreCounted() throws {
        let wire = Wire()
        let session = try Self.session(wire: wire)
        #expect(!session.send(RTPSenderSessionTests.keyFrame(ptsNanos: 0), nowNanos: 0))
        let video = wire.take()
        #expect(video.count == 4 && video.allSatisfy { $0.route == .videoRTP }, "STAP-A and three FU-A packets to the video port")
        session.send(RTPSenderBacklogTests.delta(ptsNanos: 33_000_000), nowNanos: 33_000_000)
        let delta = wire.take()
        #expect(delta.count == 1 && delta[0].datagram.readableBytes == 12 + 3, "one packet: the header and the NAL unit")
        session.send(EncodedAudioFrame(codec: .opus, data: [0xFC, 0xFF, 0xFE], ptsNanos: 0, sampleCount: 960, durationNanos: 20_000_000),
                     nowNanos: 40_000_000)
        #expect(wire.take().map(\.route) == [.audioRTP])

        let statistics = session.statistics
        #expect(statistics.video?.framesSent == 2 && statistics.video?.packetsSent == 5)
        #expect(statistics.audio?.packetsSent == 1)
        #expect(statistics.video?.bytesSent == Int64((video + delta).reduce(0) { $0 + $1.datagram.readableBytes }),
                "every video byte handed out is counted")
        #expect(session.videoReceiverReports.bytesSent == statistics.video?.bytesSent, "the ledger holds every video datagram")
    }

    /// A delta frame before any key frame waits when the session starts at one (WebRTC), not in plain RTP.
    @Test func aSessionThatStartsAtAKeyFrameSkipsTheDeltaFramesBeforeIt() throws {
        let wire = Wire()
        var configuration = RTPSendSession.Configuration()
        configuration.startsAtKeyFrame = true
        let session = try RTPSendSession(video: try RTPSenderSessionTests.session(), audio: nil, outbound: nil, inbound: nil,
                                         configuration: configuration) { datagram, route in wire.sent.append((datagram, route)) }
        session.send(RTPSenderBacklogTests.delta(ptsNanos: 0), nowNanos: 0)
        #expect(wire.take().isEmpty)
        session.send(RTPSenderSessionTests.keyFrame(ptsNanos: 33_000_000), nowNanos: 33_000_000)
        #expect(wire.take().count == 4)
    }

    @Test func aNACKIsAnsweredFromTheHistoryWithTheOriginalPackets() throws {
        let wire = Wire()
        let session = try Self.session(wire: wire)
        session.send(RTPSenderSessionTests.keyFrame(ptsNanos: 0), nowNanos: 0)
        let sent = try wire.takePackets()
        let feedback = session.receiveRTCP(try Self.nack([sent[1].header.sequenceNumber, sent[3].header.sequenceNumber]), nowNanos: 1_000_000)
        #expect(!feedback.requestKeyFrame)
        #expect(wire.sent.map(\.route) == [.videoRTP, .videoRTP])
        #expect(try wire.takePackets() == [sent[1], sent[3]], "without RTX, the same packets again")
        #expect(session.statistics.video?.packetsRetransmitted == 2 && session.statistics.rtxPacketsSent == 0)
    }

    @Test func withRTXRetransmissionsGoOnTheRTXStream() throws {
        let wire = Wire()
        let session = try Self.session(wire: wire, rtx: true)
        session.send(RTPSenderSessionTests.keyFrame(ptsNanos: 0), nowNanos: 0)
        let sent = try wire.takePackets()
        _ = session.receiveRTCP(try Self.nack([sent[2].header.sequenceNumber]), nowNanos: 1_000_000)
        let resent = try #require(try wire.takePackets().first)
        #expect(resent.header.ssrc == Self.rtxSSRC && resent.header.payloadType == 98 && resent.header.sequenceNumber == 500)
        #expect(try RTXPacketizer.unwrap(resent, originalSSRC: RTPSenderSessionTests.ssrc, originalPayloadType: 96) == sent[2])
        #expect(session.statistics.rtxPacketsSent == 1 && session.statistics.video?.packetsRetransmitted == 1)
    }

    /// The socket backlog gate: a frame that finds the socket backed up is dropped and asks for a
    /// key frame once; the delta frames after it are held until a key frame goes out.
    @Test func aBackedUpSocketDropsToTheNextKeyFrame() throws {
        let wire = Wire()
        let session = try Self.session(wire: wire)
        session.send(RTPSenderSessionTests.keyFrame(ptsNanos: 0), nowNanos: 0)
        _ = wire.take()
        #expect(session.send(RTPSenderBacklogTests.delta(ptsNanos: 33_000_000), nowNanos: 33_000_000, socketWritable: false),
                "the gap opens: ask for a key frame")
        #expect(!session.send(RTPSenderBacklogTests.delta(ptsNanos: 66_000_000), nowNanos: 66_000_000, socketWritable: true),
                "held, and no second request")
        #expect(wire.take().isEmpty)
        #expect(session.statistics.framesDroppedAtSocket == 1 && session.statistics.framesHeldAtSocket == 1)
        #expect(!session.send(RTPSenderSessionTests.keyFrame(ptsNanos: 100_000_000), nowNanos: 100_000_000))
        #expect(wire.take().count == 4, "the key frame ends the gap")
        #expect(session.statistics.video?.framesSent == 2)
    }

    @Test func reportsGoToEachStreamsRTCPRouteAndCloseSaysGoodbye() throws {
        let wire = Wire()
        let session = try Self.session(wire: wire)
        session.sendReports(nowNanos: 0)
        #expect(wire.take().isEmpty, "a stream that sent nothing is no sender")
        session.send(RTPSenderSessionTests.keyFrame(ptsNanos: 0), nowNanos: 0)
        session.send(EncodedAudioFrame(codec: .opus, data: [0xFC], ptsNanos: 0, sampleCount: 960, durationNanos: 20_000_000), nowNanos: 0)
        _ = wire.take()
        session.sendReports(nowNanos: 1_000_000_000)
        #expect(wire.take().map(\.route) == [.videoRTCP, .audioRTCP])
        #expect(session.statistics.video?.senderReportsSent == 1 && session.statistics.audio?.senderReportsSent == 1)

        session.close(nowNanos: 2_000_000_000)
        var bye = try #require(wire.take().first { $0.route == .videoRTCP }).datagram
        #expect(try RTCPCompoundPacket(from: &bye).packets.contains { if case .goodbye = $0 { true } else { false } })
        session.send(RTPSenderSessionTests.keyFrame(ptsNanos: 3_000_000_000), nowNanos: 3_000_000_000)
        session.sendReports(nowNanos: 3_000_000_000)
        #expect(wire.take().isEmpty, "nothing after the BYE")
    }

    @Test func aDatagramThatIsNotRTCPIsDroppedAndCounted() throws {
        let wire = Wire()
        let session = try Self.session(wire: wire)
        var rtp = ByteBuffer()
        RTPPacket(header: try RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 1), payload: ByteBuffer(bytes: [1])).write(to: &rtp)
        #expect(session.receiveRTCP(rtp, nowNanos: 0) == RTPSendSession.Feedback())
        #expect(session.statistics.video?.rtcpDropped == 1 && wire.sent.isEmpty)
    }
}
