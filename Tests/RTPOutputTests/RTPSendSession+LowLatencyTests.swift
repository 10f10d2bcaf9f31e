import Codec
import MediaCore
import NIOCore
import RTP
import RTPOutput
import Testing

/// What a low-latency viewer gets from the send session: the playout-delay bounds on the first
/// packet of every frame (libwebrtc reads them there), and a DLRR answer (RFC 3611) to its receiver
/// reference times in every Sender Report, so a receive-only peer can measure the round trip.
@Suite struct RTPSendSessionLowLatencyTests {
    static let transportWideID: UInt8 = 1
    static let orientationID: UInt8 = 2
    static let captureTimeID: UInt8 = 3
    static let playoutDelayID: UInt8 = 4

    static func session(wire: RTPSendSessionTests.Wire, playoutDelay: Bool = true, captureTime: Bool = false) throws -> RTPSendSession {
        var configuration = RTPSendSession.Configuration()
        configuration.startsAtKeyFrame = false
        configuration.pacing = nil
        configuration.wallClock = RTPSenderSessionTests.wallClock
        let extensions = RTPSendSession.HeaderExtensionIDs(videoTransportWideCC: transportWideID, videoOrientation: orientationID,
                                                           videoCaptureTime: captureTime ? captureTimeID : nil,
                                                           videoPlayoutDelay: playoutDelay ? playoutDelayID : nil)
        return try RTPSendSession(video: try RTPSenderSessionTests.session(), audio: nil, outbound: nil, inbound: nil,
                                  extensions: extensions, configuration: configuration) { datagram, route in wire.sent.append((datagram, route)) }
    }

    static func playoutDelay(_ packet: RTPPacket) -> PlayoutDelay? {
        packet.header.headerExtension.flatMap { PlayoutDelay(in: $0, id: playoutDelayID) }
    }

    static func transportWideNumber(_ packet: RTPPacket) -> UInt16? {
        packet.header.headerExtension.flatMap { TransportWideSequenceNumber(in: $0, id: transportWideID) }?.value
    }

    @Test func theFirstPacketOfEveryFrameCarriesNoMinimumAndAFewFramesAtMost() throws {
        #expect(PlayoutDelay.lowLatency.minimumMillis == 0 && PlayoutDelay.lowLatency.maximumMillis == 100)
        let wire = RTPSendSessionTests.Wire()
        let session = try Self.session(wire: wire)
        session.send(RTPSenderSessionTests.keyFrame(ptsNanos: 1_000_000_000), nowNanos: 1_000_000_000)
        let key = try wire.takePackets()
        #expect(key.count == 4)
        #expect(key.map(Self.playoutDelay) == [.lowLatency, nil, nil, nil])
        // Every packet keeps its transport-wide number, the last its orientation.
        let numbers = key.compactMap(Self.transportWideNumber)
        #expect(numbers.count == 4 && zip(numbers, numbers.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "\(numbers)")
        #expect(key.map { $0.header.headerExtension?.element(id: Self.orientationID) != nil } == [false, false, false, true])

        // A frame in one packet carries all three.
        session.send(RTPSenderBacklogTests.delta(ptsNanos: 1_033_366_667), nowNanos: 1_040_000_000)
        let delta = try #require(try wire.takePackets().first)
        #expect(Self.playoutDelay(delta) == .lowLatency)
        #expect(Self.transportWideNumber(delta) == numbers.last.map { $0 &+ 1 })
        #expect(delta.header.headerExtension?.element(id: Self.orientationID) != nil)
    }

    @Test func besideTheCaptureTimeInTheFramesOwnBlocks() throws {
        let wire = RTPSendSessionTests.Wire()
        let session = try Self.session(wire: wire, captureTime: true)
        session.send(RTPSenderSessionTests.keyFrame(ptsNanos: 2_000_000_000), nowNanos: 2_000_000_000)
        session.send(RTPSenderBacklogTests.delta(ptsNanos: 2_033_366_667), nowNanos: 2_040_000_000)
        let packets = try wire.takePackets()
        #expect(packets.map(Self.playoutDelay) == [.lowLatency, nil, nil, nil, .lowLatency])
        let captureTimes = packets.map { $0.header.headerExtension.flatMap { AbsoluteCaptureTime(in: $0, id: Self.captureTimeID) } != nil }
        #expect(captureTimes == [true, false, false, false, true])
        #expect(packets.compactMap(Self.transportWideNumber).count == 5)
    }

    @Test func withoutNegotiationNoPacketCarriesIt() throws {
        let wire = RTPSendSessionTests.Wire()
        let session = try Self.session(wire: wire, playoutDelay: false)
        session.send(RTPSenderSessionTests.keyFrame(ptsNanos: 0), nowNanos: 0)
        session.send(RTPSenderBacklogTests.delta(ptsNanos: 33_000_000), nowNanos: 33_000_000)
        let packets = try wire.takePackets()
        #expect(packets.count == 5 && packets.allSatisfy { $0.header.headerExtension?.element(id: Self.playoutDelayID) == nil })
    }

    /// The receiver's RR and XR with RRTR, as a receive-only Chromium sends them.
    static func receiverReport(referenceTime: NTPTimestamp) throws -> ByteBuffer {
        let report = try ReceiverReport(ssrc: RTPSenderSessionTests.receiverSSRC, reports: [])
        let xr = try ExtendedReport(ssrc: RTPSenderSessionTests.receiverSSRC, blocks: [.receiverReferenceTime(referenceTime)])
        var bytes = ByteBuffer()
        RTCPCompoundPacket(packets: [.receiverReport(report), .extendedReport(xr)]).write(to: &bytes)
        return bytes
    }

    static func takeReport(_ wire: RTPSendSessionTests.Wire) throws -> [RTCPPacket] {
        var datagram = try #require(wire.take().first { $0.route == .videoRTCP }?.datagram)
        return try RTCPCompoundPacket(from: &datagram).packets
    }

    @Test func everySenderReportAfterAnRRTRAnswersItWithDLRR() throws {
        let wire = RTPSendSessionTests.Wire()
        let session = try Self.session(wire: wire, playoutDelay: false)
        session.send(RTPSenderSessionTests.keyFrame(ptsNanos: 1_000_000_000), nowNanos: 1_000_000_000)
        _ = wire.take()
        session.sendReports(nowNanos: 1_100_000_000)
        let before = try Self.takeReport(wire)
        #expect(before.count == 2, "SR + SDES and no XR before the peer sent an RRTR: \(before)")

        let referenceTime = NTPTimestamp(seconds: 0xE8F1_2345, fraction: 0x8000_0001)
        _ = session.receiveRTCP(try Self.receiverReport(referenceTime: referenceTime), nowNanos: 1_200_000_000)
        #expect(session.statistics.video?.receiverReferenceTimesReceived == 1)
        // 250 ms later: DLRR = 0.25 × 65536 = 16384.
        session.sendReports(nowNanos: 1_450_000_000)
        let after = try Self.takeReport(wire)
        #expect(after.count == 3)
        guard case .senderReport = after.first, case .extendedReport(let xr) = after.last else {
            Issue.record("SR first, XR last: \(after)")
            return
        }
        #expect(xr.ssrc == RTPSenderSessionTests.ssrc)
        #expect(xr.blocks == [.delaySinceLastReceiverReport([.init(ssrc: RTPSenderSessionTests.receiverSSRC, lastReceiverReport: 0x2345_8000, delay: 16_384)])])
        // On the wire, as RFC 3611 §4.5 lays it out: XR from our SSRC | DLRR, 3 words | the peer's SSRC | LRR | DLRR
        var bytes = ByteBuffer()
        RTCPPacket.extendedReport(xr).write(to: &bytes)
        #expect(Array(bytes.readableBytesView) == [0x80, 0xCF, 0x00, 0x05, 0xCA, 0xFE, 0x00, 0x01, 0x05, 0x00, 0x00, 0x03,
                                                   0x0B, 0xAD, 0xF0, 0x0D, 0x23, 0x45, 0x80, 0x00, 0x00, 0x00, 0x40, 0x00])
        #expect(session.statistics.video?.receiverReferenceTimesAnswered == 1)
    }
}
