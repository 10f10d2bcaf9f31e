import Codec
import MediaCore
import NIOCore
import RTP
@testable import RTPOutput
import Testing

/// One frame packetized once for every session of an output (the viewers of a WHEP output): the
/// sessions' histories hold the same payload storage, their datagrams are what each would have
/// sent packetizing alone, and NACKs are answered from the shared payloads.
@Suite struct H264PayloadSharingTests {
    /// Where a payload's bytes live: two payloads with the same address share one storage.
    static func address(_ payload: ByteBuffer) -> UInt? {
        payload.withUnsafeReadableBytes { $0.baseAddress.map { UInt(bitPattern: $0) } }
    }

    /// The payload addresses of what `session`'s NACK history holds for `packets`.
    static func heldPayloads(_ session: RTPSendSession, _ packets: [RTPPacket]) -> [UInt?] {
        packets.map { packet in session.video?.sentPacket(sequenceNumber: packet.header.sequenceNumber).flatMap { address($0.payload) } }
    }

    static func send(_ frame: EncodedVideoFrame, to sessions: [RTPSendSession], sharing: inout H264PayloadSharing, nowNanos: Int64) {
        sharing.beginFrame()
        for session in sessions { session.send(frame, sharing: &sharing, nowNanos: nowNanos) }
    }

    @Test func twoSessionsHoldOneCopyOfEachFramesPayloads() throws {
        let (wireA, wireB) = (RTPSendSessionTests.Wire(), RTPSendSessionTests.Wire())
        let (a, b) = (try RTPSendSessionTests.session(wire: wireA), try RTPSendSessionTests.session(wire: wireB))
        var sharing = H264PayloadSharing()
        Self.send(RTPSenderSessionTests.keyFrame(ptsNanos: 0), to: [a, b], sharing: &sharing, nowNanos: 0)
        Self.send(RTPSenderBacklogTests.delta(ptsNanos: 33_000_000), to: [a, b], sharing: &sharing, nowNanos: 33_000_000)
        #expect(sharing.framesPacketized == 2, "each frame packetized once for both sessions")

        let sentA = try wireA.takePackets(), sentB = try wireB.takePackets()
        #expect(sentA.count == 5 && sentB.count == 5, "STAP-A and three FU-A, then the delta frame's one packet")
        let heldA = Self.heldPayloads(a, sentA), heldB = Self.heldPayloads(b, sentB)
        #expect(heldA.allSatisfy { $0 != nil })
        #expect(heldA == heldB, "both histories hold the same payload storage, not copies")
        #expect(Set(heldA).count == 5)
    }

    /// With capture times and transport-wide numbers (a browser viewer), the datagrams are the
    /// bytes a session that packetizes alone sends: only where the payloads live changed.
    @Test func sharedPayloadsSendTheSameBytesAsPacketizingAlone() throws {
        let (alone, shared) = (RTPSendSessionTests.Wire(), RTPSendSessionTests.Wire())
        let reference = try RTPSendSessionCaptureTimeTests.session(wire: alone)
        let session = try RTPSendSessionCaptureTimeTests.session(wire: shared)
        var sharing = H264PayloadSharing()
        let frames = [RTPSenderSessionTests.keyFrame(ptsNanos: 5_000_000_000), RTPSenderBacklogTests.delta(ptsNanos: 5_033_366_667)]
        for (index, frame) in frames.enumerated() {
            let now = 5_010_000_000 + Int64(index) * 33_000_000
            reference.send(frame, nowNanos: now)
            sharing.beginFrame()
            session.send(frame, sharing: &sharing, nowNanos: now)
        }
        let expected = alone.take(), sent = shared.take()
        #expect(sent.count == 5)
        #expect(sent.map(\.datagram) == expected.map(\.datagram))
        #expect(session.statistics == reference.statistics)
    }

    @Test func aNACKIsAnsweredOnRTXFromTheSharedPayloads() throws {
        let (wireA, wireB) = (RTPSendSessionTests.Wire(), RTPSendSessionTests.Wire())
        let (a, b) = (try RTPSendSessionTests.session(wire: wireA, rtx: true), try RTPSendSessionTests.session(wire: wireB, rtx: true))
        var sharing = H264PayloadSharing()
        Self.send(RTPSenderSessionTests.keyFrame(ptsNanos: 0), to: [a, b], sharing: &sharing, nowNanos: 0)
        _ = wireA.take()
        let sent = try wireB.takePackets()
        _ = b.receiveRTCP(try RTPSendSessionTests.nack([sent[2].header.sequenceNumber]), nowNanos: 1_000_000)
        let resent = try #require(try wireB.takePackets().first)
        #expect(resent.header.ssrc == RTPSendSessionTests.rtxSSRC)
        #expect(try RTXPacketizer.unwrap(resent, originalSSRC: RTPSenderSessionTests.ssrc, originalPayloadType: 96) == sent[2])
        #expect(wireA.take().isEmpty, "the other session sends nothing")
    }

    /// A session with another payload size gets payloads of its own size; each size is packetized once.
    @Test func aSessionWithAnotherPayloadSizeGetsItsOwnPayloads() throws {
        let (wireA, wireB, wireC) = (RTPSendSessionTests.Wire(), RTPSendSessionTests.Wire(), RTPSendSessionTests.Wire())
        let packetizer = try RTPPacketizer(ssrc: RTPSenderSessionTests.ssrc, payloadType: 96, payloader: try H264Payloader(maxPayloadSize: 1200),
                                           sequencer: RTPSequencer(start: 1), timestampOffset: 0)
        var configuration = RTPSendSession.Configuration()
        configuration.startsAtKeyFrame = false
        let large = try RTPSendSession(video: RTPSenderSession(packetizer: packetizer, cname: "test"), audio: nil, outbound: nil, inbound: nil,
                                       configuration: configuration) { datagram, route in wireC.sent.append((datagram, route)) }
        let (a, b) = (try RTPSendSessionTests.session(wire: wireA), try RTPSendSessionTests.session(wire: wireB))
        var sharing = H264PayloadSharing()
        Self.send(RTPSenderSessionTests.keyFrame(ptsNanos: 0), to: [a, large, b], sharing: &sharing, nowNanos: 0)
        #expect(sharing.framesPacketized == 2, "once at 100 bytes, once at 1200")
        #expect(wireA.take().count == 4 && wireB.take().count == 4)
        #expect(try wireC.takePackets().map(\.payload.readableBytes) == [1 + 2 + 5 + 2 + 4 + 2 + 250], "one STAP-A at 1200 bytes")
    }

    /// Each rendition's payloader keeps its own parameter sets: a key frame of one rendition that
    /// lacks them gets that rendition's in front, never the other's.
    @Test func eachRenditionKeepsItsOwnParameterSets() throws {
        func frame(_ units: [[UInt8]], rendition: Int) -> EncodedVideoFrame {
            var data: [UInt8] = [], ranges: [Range<Int>] = []
            for unit in units {
                data += [0, 0, 0, 1]
                ranges.append(data.count..<(data.count + unit.count))
                data += unit
            }
            var frame = EncodedVideoFrame(codec: .h264, data: data, nalUnitRanges: ranges, ptsNanos: 0, dtsNanos: 0,
                                          isKeyFrame: true, parameterSets: ParameterSets(codec: .h264))
            frame.rendition = rendition
            return frame
        }
        let (sps0, sps1, pps): ([UInt8], [UInt8], [UInt8]) = ([0x67, 0x42, 0, 0x1f], [0x67, 0x42, 0, 0x1e], [0x68, 0xce])
        let idr: [UInt8] = [0x65, 0x88, 0x84]
        var sharing = H264PayloadSharing()
        for (rendition, sps) in [(1, sps1), (0, sps0)] {
            sharing.beginFrame()
            _ = try sharing.payloads(for: frame([sps, pps, idr], rendition: rendition), maxPayloadSize: 1200)
        }
        sharing.beginFrame()
        let payload = try #require(try sharing.payloads(for: frame([idr], rendition: 1), maxPayloadSize: 1200).first)
        // STAP-A: header, then each unit after its 16-bit size; the first is rendition 1's SPS, though rendition 0 came last.
        #expect(Array(payload.readableBytesView.dropFirst(3).prefix(sps1.count)) == sps1)
        #expect(sharing.framesPacketized == 3)
    }
}
