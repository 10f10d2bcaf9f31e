import Codec
import MediaCore
import NIOCore
import RTP
import RTPOutput
import Testing

/// abs-capture-time on each frame's first packet, and Sender Reports whose NTP/RTP pair maps a
/// frame's RTP timestamp back to the same wall-clock capture time the extension carries.
@Suite struct RTPSendSessionCaptureTimeTests {
    static let transportWideID: UInt8 = 1
    static let orientationID: UInt8 = 2
    static let captureTimeID: UInt8 = 3
    static let wallClock = RTPSenderSessionTests.wallClock

    static func session(wire: RTPSendSessionTests.Wire, captureTime: Bool = true, transportWide: Bool = true) throws -> RTPSendSession {
        var configuration = RTPSendSession.Configuration()
        configuration.startsAtKeyFrame = false
        configuration.pacing = nil
        configuration.wallClock = wallClock
        let extensions = RTPSendSession.HeaderExtensionIDs(videoTransportWideCC: transportWide ? transportWideID : nil,
                                                           videoOrientation: orientationID, videoCaptureTime: captureTime ? captureTimeID : nil)
        return try RTPSendSession(video: try RTPSenderSessionTests.session(), audio: nil, outbound: nil, inbound: nil,
                                  extensions: extensions, configuration: configuration) { datagram, route in wire.sent.append((datagram, route)) }
    }

    static func captureTime(_ packet: RTPPacket) -> AbsoluteCaptureTime? {
        packet.header.headerExtension.flatMap { AbsoluteCaptureTime(in: $0, id: captureTimeID) }
    }

    static func expectedCaptureTime(ptsNanos: Int64) -> AbsoluteCaptureTime {
        AbsoluteCaptureTime(captureTime: NTPTimestamp(unixNanos: wallClock.wallClockNanos(forMonotonic: ptsNanos)))
    }

    @Test func theFirstPacketOfEveryFrameCarriesItsWallClockCaptureTimeBesideTheOtherExtensions() throws {
        let wire = RTPSendSessionTests.Wire()
        let session = try Self.session(wire: wire)
        session.send(RTPSenderSessionTests.keyFrame(ptsNanos: 5_000_000_000), nowNanos: 5_010_000_000)
        let key = try wire.takePackets()
        #expect(key.count == 4)
        #expect(key.map(Self.captureTime) == [Self.expectedCaptureTime(ptsNanos: 5_000_000_000), nil, nil, nil])
        // Every packet keeps its transport-wide number (stamped in place), the last its orientation.
        let numbers = key.compactMap { $0.header.headerExtension.flatMap { TransportWideSequenceNumber(in: $0, id: Self.transportWideID) } }
        #expect(numbers.count == 4 && zip(numbers, numbers.dropFirst()).allSatisfy { $1.value == $0.value &+ 1 }, "\(numbers)")
        #expect(key.map { $0.header.headerExtension?.element(id: Self.orientationID) != nil } == [false, false, false, true])

        // A frame in one packet: first and last at once, it carries all three.
        session.send(RTPSenderBacklogTests.delta(ptsNanos: 5_033_366_667), nowNanos: 5_040_000_000)
        let delta = try wire.takePackets()
        #expect(delta.count == 1)
        #expect(delta.first.flatMap(Self.captureTime) == Self.expectedCaptureTime(ptsNanos: 5_033_366_667))
        #expect(delta.first?.header.headerExtension.flatMap { TransportWideSequenceNumber(in: $0, id: Self.transportWideID) }?.value
                == numbers.last.map { $0.value &+ 1 })
        #expect(delta.first?.header.headerExtension?.element(id: Self.orientationID) != nil)
    }

    /// The per-frame block lives in the frame's own buffer, beside the payload: no allocation of its own.
    @Test func theCaptureTimeBlockSharesTheFramesBuffer() throws {
        var sender = try RTPSenderSessionTests.session()
        let blocks = CaptureTimeExtensionBlocks(captureTimeID: Self.captureTimeID, transportWideID: Self.transportWideID, orientationID: Self.orientationID)
        let value = Self.expectedCaptureTime(ptsNanos: 1_000)
        let packets = try sender.packets(for: RTPSenderBacklogTests.delta(ptsNanos: 1_000), allocator: .init(), monotonicNanos: 0,
                                         captureTime: (blocks, value))
        let packet = try #require(packets.first)
        let block = try #require(packet.header.headerExtension)
        #expect(AbsoluteCaptureTime(in: block, id: Self.captureTimeID) == value)
        // The NAL unit sits at bytes 4..<7 of the frame's buffer, the first packet's block (3 + 9
        // bytes) at 7..<19, then this lone packet's (with the orientation) at 19: 15 bytes on in one
        // storage (or 0, if the pointers name the storage's start); two allocations cannot be that close.
        func address(_ buffer: ByteBuffer) -> Int { buffer.withVeryUnsafeBytes { Int(bitPattern: $0.baseAddress) } }
        let distance = address(block.data) - address(packet.payload)
        #expect(distance == 15 || distance == 0, "block and payload \(distance) bytes apart: not one storage")
        #expect(block.element(id: Self.orientationID) != nil)
    }

    @Test func aRetransmittedFirstPacketCarriesTheSameCaptureTime() throws {
        let wire = RTPSendSessionTests.Wire()
        let session = try Self.session(wire: wire, transportWide: false)
        session.send(RTPSenderSessionTests.keyFrame(ptsNanos: 2_000_000_000), nowNanos: 2_000_000_000)
        let sent = try wire.takePackets()
        _ = session.receiveRTCP(try RTPSendSessionTests.nack([sent[0].header.sequenceNumber]), nowNanos: 2_100_000_000)
        let resent = try wire.takePackets()
        #expect(resent.count == 1)
        #expect(resent.first.flatMap(Self.captureTime) == Self.expectedCaptureTime(ptsNanos: 2_000_000_000))
    }

    @Test func withoutNegotiationNoPacketCarriesIt() throws {
        let wire = RTPSendSessionTests.Wire()
        let session = try Self.session(wire: wire, captureTime: false)
        session.send(RTPSenderSessionTests.keyFrame(ptsNanos: 0), nowNanos: 0)
        session.send(RTPSenderBacklogTests.delta(ptsNanos: 33_000_000), nowNanos: 33_000_000)
        let packets = try wire.takePackets()
        #expect(packets.count == 5 && packets.allSatisfy { Self.captureTime($0) == nil })
        #expect(packets.allSatisfy { $0.header.headerExtension?.element(id: Self.captureTimeID) == nil })
    }

    /// A receiver maps a frame's RTP timestamp to wall clock with the last Sender Report's pair:
    /// NTP + (RTP − RTP_SR) / 90 kHz. That must land on the capture time the extension names.
    @Test(arguments: [Int64(1_000_000_000), 123_456_789_012, 7_777_777_777_777])
    func aSenderReportMapsEachFramesRTPTimestampToItsCaptureWallTimeWithinAMillisecond(startNanos: Int64) throws {
        let wire = RTPSendSessionTests.Wire()
        let session = try Self.session(wire: wire)
        var frames: [(rtp: UInt32, wallNanos: Int64, extensionNanos: Int64?)] = []
        for index in 0..<30 {
            // Capture instants that are not whole 90 kHz ticks, sent a little after capture.
            let pts = startNanos + Int64(index) * 33_366_667 + 4_321
            session.send(index == 0 ? RTPSenderSessionTests.keyFrame(ptsNanos: pts) : RTPSenderBacklogTests.delta(ptsNanos: pts), nowNanos: pts + 15_000_000)
            let first = try #require(try wire.takePackets().first)
            frames.append((first.header.timestamp, Self.wallClock.wallClockNanos(forMonotonic: pts), Self.captureTime(first)?.captureTime.unixNanos))
        }
        // The report goes out later than every frame, at an instant of its own.
        session.sendReports(nowNanos: startNanos + 1_234_567_891)
        var datagram = try #require(wire.take().first?.datagram)
        let compound = try RTCPCompoundPacket(from: &datagram)
        guard case .senderReport(let report) = compound.packets.first else {
            Issue.record("no sender report: \(compound)")
            return
        }
        for frame in frames {
            let ticks = Int64(Int32(bitPattern: frame.rtp &- report.rtpTimestamp))
            let mapped = report.ntpTimestamp.unixNanos + ticks * 1_000_000_000 / 90_000
            #expect(abs(mapped - frame.wallNanos) < 1_000_000, "SR maps RTP \(frame.rtp) to \(mapped), captured at \(frame.wallNanos)")
            #expect(abs(mapped - (frame.extensionNanos ?? .min)) < 1_000_000, "SR and abs-capture-time disagree")
            #expect(abs((frame.extensionNanos ?? .min) - frame.wallNanos) <= 1, "the extension is the capture time to the nanosecond")
        }
    }
}
