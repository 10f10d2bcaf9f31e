import Codec
import MediaCore
import NIOCore
import RTP
import RTPOutput
import Testing

/// The sender's state machine without sockets: packets, reports and feedback answers.
@Suite struct RTPSenderSessionTests {
    static let ssrc: UInt32 = 0xCAFE_0001
    static let receiverSSRC: UInt32 = 0x0BAD_F00D
    /// Wall clock = monotonic + 1 000 s, so NTP times are predictable.
    static let wallClock = WallClockMapping(offsetNanos: 1_000_000_000_000)

    static func session(limiterIntervalNanos: Int64 = 500_000_000) throws -> RTPSenderSession<H264Payloader> {
        let packetizer = try RTPPacketizer(
            ssrc: ssrc, payloadType: 96, payloader: try H264Payloader(maxPayloadSize: 100),
            sequencer: RTPSequencer(start: 65_534), timestampOffset: 1000)
        return RTPSenderSession(packetizer: packetizer, cname: "test", historyCapacity: 16,
                                limiter: KeyFrameRequestLimiter(minimumIntervalNanos: limiterIntervalNanos))
    }

    /// SPS + PPS + a 250-byte IDR slice (three FU-A packets at 100 bytes) as Annex B.
    static func keyFrame(ptsNanos: Int64) -> EncodedVideoFrame {
        let sps: [UInt8] = [0x67, 0x42, 0xc0, 0x1f, 0x8c]
        let pps: [UInt8] = [0x68, 0xce, 0x3c, 0x80]
        let idr: [UInt8] = [0x65] + (0..<249).map { UInt8(truncatingIfNeeded: $0) }
        var data: [UInt8] = []
        var ranges: [Range<Int>] = []
        for unit in [sps, pps, idr] {
            data += [0, 0, 0, 1]
            ranges.append(data.count..<(data.count + unit.count))
            data += unit
        }
        return EncodedVideoFrame(codec: .h264, data: data, nalUnitRanges: ranges, ptsNanos: ptsNanos, dtsNanos: ptsNanos,
                                 isKeyFrame: true, parameterSets: ParameterSets(codec: .h264, sps: [sps], pps: [pps]))
    }

    static func feedback(_ packets: [RTCPPacket]) -> RTCPCompoundPacket { RTCPCompoundPacket(packets: packets) }

    @Test func packetsCarryTheFrameAndAreCounted() throws {
        var session = try Self.session()
        let packets = try session.packets(for: Self.keyFrame(ptsNanos: 1_000_000_000), allocator: .init(), monotonicNanos: 0)
        // STAP-A(SPS, PPS), then the IDR in FU-A fragments; sequence numbers wrap past 65535.
        #expect(packets.map(\.header.sequenceNumber) == [65_534, 65_535, 0, 1])
        #expect(packets.map(\.header.marker) == [false, false, false, true])
        #expect(packets.allSatisfy { $0.header.timestamp == 1000 + 90_000 }, "one frame, one timestamp: offset + 1 s at 90 kHz")
        #expect(session.statistics.packetsSent == 4)
        #expect(session.statistics.framesSent == 1)
        #expect(session.statistics.payloadOctetsSent == packets.reduce(0) { $0 + $1.payload.readableBytes })
    }

    /// SR: NTP and RTP time name the same instant; counts are what was sent; SDES CNAME follows.
    @Test func senderReport() throws {
        var session = try Self.session()
        _ = try session.packets(for: Self.keyFrame(ptsNanos: 0), allocator: .init(), monotonicNanos: 0)
        let compound = try session.senderReport(monotonicNanos: 2_000_000_000, wallClock: Self.wallClock)
        guard case .senderReport(let report) = compound.packets.first, case .sourceDescription(let sdes) = compound.packets.last else {
            Issue.record("expected SR + SDES, got \(compound.packets)")
            return
        }
        #expect(report.ssrc == Self.ssrc)
        #expect(report.ntpTimestamp == NTPTimestamp(unixNanos: 1_002_000_000_000))
        #expect(report.rtpTimestamp == 1000 + 180_000)
        #expect(report.packetCount == 4)
        #expect(report.octetCount == UInt32(session.statistics.payloadOctetsSent))
        #expect(sdes == (try SourceDescription(ssrc: Self.ssrc, cname: "test")))
        var bytes = ByteBuffer()
        compound.write(to: &bytes)
        #expect(try RTCPCompoundPacket(from: &bytes, allowReducedSize: false) == compound, "a valid RFC 3550 compound packet")
    }

    @Test func nackIsAnsweredFromHistory() throws {
        var session = try Self.session()
        let sent = try session.packets(for: Self.keyFrame(ptsNanos: 0), allocator: .init(), monotonicNanos: 0)
        let nack = try GenericNACK(senderSSRC: Self.receiverSSRC, mediaSSRC: Self.ssrc, lostSequenceNumbers: [65_535, 1, 7])
        let response = session.handle(Self.feedback([.genericNACK(nack)]), monotonicNanos: 0, wallClock: Self.wallClock)
        #expect(response.retransmissions == [sent[1], sent[3]])
        #expect(!response.requestKeyFrame)
        #expect(session.statistics.nacksReceived == 1)
        #expect(session.statistics.packetsRetransmitted == 2)
        #expect(session.statistics.retransmissionsUnavailable == 1, "7 was never sent")

        // Named again 5 ms later (no round trip measured yet: 100 ms), then after 100 ms.
        #expect(session.handle(Self.feedback([.genericNACK(nack)]), monotonicNanos: 5_000_000, wallClock: Self.wallClock).retransmissions.isEmpty)
        #expect(session.statistics.retransmissionsTooSoon == 2)
        #expect(session.handle(Self.feedback([.genericNACK(nack)]), monotonicNanos: 100_000_000, wallClock: Self.wallClock).retransmissions == [sent[1], sent[3]])
        #expect(session.statistics.packetsRetransmitted == 4 && session.statistics.retransmissionsUnavailable == 3)

        let otherStream = try GenericNACK(senderSSRC: Self.receiverSSRC, mediaSSRC: 99, lostSequenceNumbers: [0])
        #expect(session.handle(Self.feedback([.genericNACK(otherStream)]), monotonicNanos: 0, wallClock: Self.wallClock).retransmissions.isEmpty)
    }

    /// Packets are let go a second after they were sent, or three round trips once a receiver
    /// report measured a longer one: a NACK later than that is not answered, one within it is.
    @Test func nacksAreAnsweredForASecondOrThreeRoundTrips() throws {
        var session = try Self.session()
        func nack(_ packets: [RTPPacket], at nowNanos: Int64) throws -> [RTPPacket] {
            let nack = try GenericNACK(senderSSRC: Self.receiverSSRC, mediaSSRC: Self.ssrc, lostSequenceNumbers: packets.map(\.header.sequenceNumber))
            return session.handle(Self.feedback([.genericNACK(nack)]), monotonicNanos: nowNanos, wallClock: Self.wallClock).retransmissions
        }
        let first = try session.packets(for: Self.keyFrame(ptsNanos: 0), allocator: .init(), monotonicNanos: 0)
        _ = try session.packets(for: Self.keyFrame(ptsNanos: 0), allocator: .init(), monotonicNanos: 999_000_000)
        #expect(try nack(first, at: 999_000_000) == first, "sent 999 ms ago")
        _ = try session.packets(for: Self.keyFrame(ptsNanos: 0), allocator: .init(), monotonicNanos: 1_001_000_000)
        #expect(try nack(first, at: 1_200_000_000).isEmpty, "sent more than a second ago")
        #expect(session.statistics.retransmissionsUnavailable == first.count)

        // RTT 500 ms: the receiver held our 2 s SR for 100 ms, its report arrives at 2.6 s.
        let srTime = NTPTimestamp(unixNanos: Self.wallClock.wallClockNanos(forMonotonic: 2_000_000_000))
        let block = ReceptionReport(ssrc: Self.ssrc, fractionLost: 0, cumulativeLost: 0, extendedHighestSequenceNumber: 0,
                                    jitter: 0, lastSenderReport: srTime.middle32, delaySinceLastSenderReport: 65_536 / 10)
        _ = session.handle(Self.feedback([.receiverReport(try ReceiverReport(ssrc: Self.receiverSSRC, reports: [block]))]),
                           monotonicNanos: 2_600_000_000, wallClock: Self.wallClock)
        let third = try session.packets(for: Self.keyFrame(ptsNanos: 0), allocator: .init(), monotonicNanos: 3_000_000_000)
        _ = try session.packets(for: Self.keyFrame(ptsNanos: 0), allocator: .init(), monotonicNanos: 4_400_000_000)
        #expect(try nack(third, at: 4_400_000_000) == third, "1.4 s ago, within three round trips")
        _ = try session.packets(for: Self.keyFrame(ptsNanos: 0), allocator: .init(), monotonicNanos: 5_000_000_000)
        #expect(try nack(third, at: 5_000_000_000).isEmpty, "2 s ago (and resent 600 ms ago, more than a round trip)")
    }

    /// A PLI storm yields one encoder request per interval; a key frame just sent answers PLIs too.
    @Test func pictureLossIsRateLimited() throws {
        var session = try Self.session()
        let pli = Self.feedback([.pictureLossIndication(PictureLossIndication(senderSSRC: Self.receiverSSRC, mediaSSRC: Self.ssrc))])
        #expect(session.handle(pli, monotonicNanos: 0, wallClock: Self.wallClock).requestKeyFrame)
        #expect(!session.handle(pli, monotonicNanos: 100_000_000, wallClock: Self.wallClock).requestKeyFrame)
        #expect(session.handle(pli, monotonicNanos: 600_000_000, wallClock: Self.wallClock).requestKeyFrame)
        _ = try session.packets(for: Self.keyFrame(ptsNanos: 0), allocator: .init(), monotonicNanos: 2_000_000_000)
        #expect(!session.handle(pli, monotonicNanos: 2_100_000_000, wallClock: Self.wallClock).requestKeyFrame)
        #expect(session.statistics.keyFrameRequestsReceived == 4)
        #expect(session.statistics.keyFramesRequested == 2)

        let fir = try FullIntraRequest(senderSSRC: Self.receiverSSRC, entries: [FullIntraRequestEntry(ssrc: Self.ssrc, sequenceNumber: 1)])
        #expect(session.handle(Self.feedback([.fullIntraRequest(fir)]), monotonicNanos: 5_000_000_000, wallClock: Self.wallClock).requestKeyFrame)
        #expect(!session.handle(Self.feedback([.fullIntraRequest(fir)]), monotonicNanos: 9_000_000_000, wallClock: Self.wallClock).requestKeyFrame,
                "a repeated FIR sequence number is a retransmission")
    }

    /// RR → loss, jitter and RTT = arrival − LSR − DLSR.
    @Test func receiverReportUpdatesStatistics() throws {
        var session = try Self.session()
        let srTime = NTPTimestamp(unixNanos: Self.wallClock.wallClockNanos(forMonotonic: 10_000_000_000))
        let block = ReceptionReport(ssrc: Self.ssrc, fractionLost: 64, cumulativeLost: 12, extendedHighestSequenceNumber: 500,
                                    jitter: 900, lastSenderReport: srTime.middle32, delaySinceLastSenderReport: 65_536 / 10)
        let report = try ReceiverReport(ssrc: Self.receiverSSRC, reports: [block])
        // Arrives 130 ms after the SR: 100 ms held by the receiver, so RTT 30 ms.
        _ = session.handle(Self.feedback([.receiverReport(report)]), monotonicNanos: 10_130_000_000, wallClock: Self.wallClock)
        let statistics = session.statistics
        #expect(statistics.receiverReportsReceived == 1)
        #expect(statistics.fractionLost == 0.25)
        #expect(statistics.cumulativeLost == 12)
        #expect(statistics.jitterMillis == 10)
        let roundTrip = try #require(statistics.roundTripTimeNanos)
        #expect(abs(roundTrip - 30_000_000) < 100_000, "\(roundTrip) ns")
    }

    @Test func rembIsRecorded() throws {
        var session = try Self.session()
        let remb = try ReceiverEstimatedMaximumBitrate(senderSSRC: Self.receiverSSRC, bitrateBitsPerSecond: 1_500_000, ssrcs: [Self.ssrc])
        _ = session.handle(Self.feedback([.receiverEstimatedMaximumBitrate(remb)]), monotonicNanos: 0, wallClock: Self.wallClock)
        #expect(session.statistics.estimatedBitrateBitsPerSecond == 1_500_000)
    }
}
