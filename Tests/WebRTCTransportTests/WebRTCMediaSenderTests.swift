import Codec
import DTLS
import MediaCore
import NIOCore
import RTP
import SRTP
import Testing
@testable import WebRTC
import WebRTCTransport

/// The per-peer send path without sockets: what goes on the wire is unprotected with the peer's
/// view of the keys and decoded, and feedback is fed back as the peer would protect it.
@Suite struct WebRTCMediaSenderTests {
    static let videoSSRC: UInt32 = 0x1111_0001
    static let rtxSSRC: UInt32 = 0x1111_0002
    static let audioSSRC: UInt32 = 0x2222_0001
    static let viewerSSRC: UInt32 = 0x0BAD_F00D

    final class Wire: @unchecked Sendable {
        var datagrams: [ByteBuffer] = []
    }

    static func session(rtx: Bool, orientationID: UInt8?, audio: Bool, transportWideID: UInt8? = nil, captureTimeID: UInt8? = nil) -> NegotiatedSession {
        let video = NegotiatedVideo(
            mid: "0", payloadType: 102, remoteProfileLevelID: .constrainedBaseline31, sendProfileLevelID: .constrainedBaseline31,
            levelAsymmetryAllowed: true, rtxPayloadType: rtx ? 103 : nil, feedback: [.nack, .pictureLossIndication],
            videoOrientationExtensionID: orientationID, transportWideCCExtensionID: transportWideID,
            captureTimeExtensionID: captureTimeID, ssrc: videoSSRC, rtxSSRC: rtx ? rtxSSRC : nil)
        let opus = audio ? NegotiatedAudio(mid: "1", payloadType: 111, formatParameters: nil, feedback: [], transportWideCCExtensionID: transportWideID,
                                           ssrc: audioSSRC) : nil
        return NegotiatedSession(
            video: video, audio: opus, bundleMids: ["0", "1"], remoteCredentials: ICECredentials(ufrag: "abcd", pwd: "0123456789abcdefghijkl"),
            remoteCandidates: [], remoteFingerprint: DTLSFingerprint(algorithm: .sha256, bytes: Array(repeating: 0, count: 32)),
            remoteICELite: false, dtlsRole: .server)
    }

    /// A sender, the wire it writes to, and the peer's SRTP contexts.
    static func make(rtx: Bool = false, orientationID: UInt8? = nil, audio: Bool = false, transportWideID: UInt8? = nil,
                     ours: SRTPKeyingMaterial = .random())
        throws -> (sender: WebRTCMediaSender, wire: Wire, peerIn: SRTPSession, peerOut: SRTPSession) {
        let theirs = SRTPKeyingMaterial.random()
        let wire = Wire()
        let sender = try WebRTCMediaSender(
            session: session(rtx: rtx, orientationID: orientationID, audio: audio, transportWideID: transportWideID),
            outbound: try SRTPSession(keyingMaterial: ours, role: .sender), inbound: try SRTPSession(keyingMaterial: theirs, role: .receiver),
            cname: "test") { wire.datagrams.append($0) }
        return (sender, wire, try SRTPSession(keyingMaterial: ours, role: .receiver), try SRTPSession(keyingMaterial: theirs, role: .sender))
    }

    /// SPS + PPS + an IDR slice of `bytes` (3000 by default: FU-A in three packets at 1200 bytes),
    /// or a P slice of `bytes` (300 by default).
    static func frame(ptsNanos: Int64, key: Bool, bytes: Int? = nil, rotation: VideoRotation = .none) -> EncodedVideoFrame {
        let units: [[UInt8]] = key
            ? [[0x67, 0x42, 0xc0, 0x1f, 0x8c], [0x68, 0xce, 0x3c, 0x80], [0x65] + Array(repeating: 0xAB, count: bytes ?? 3000)]
            : [[0x41] + Array(repeating: 0xCD, count: bytes ?? 300)]
        var data: [UInt8] = [], ranges: [Range<Int>] = []
        for unit in units {
            data += [0, 0, 0, 1]
            ranges.append(data.count..<(data.count + unit.count))
            data += unit
        }
        return EncodedVideoFrame(codec: .h264, data: data, nalUnitRanges: ranges, ptsNanos: ptsNanos, dtsNanos: ptsNanos,
                                 isKeyFrame: key, parameterSets: ParameterSets(codec: .h264), rotation: rotation)
    }

    static func rtp(_ datagrams: [ByteBuffer], _ srtp: SRTPSession) throws -> [RTPPacket] {
        try datagrams.filter { RTPDemultiplexedPacketKind(datagram: $0) == .rtp }.map { datagram in
            var buffer = datagram
            try srtp.unprotect(srtp: &buffer)
            return try RTPPacket(from: &buffer)
        }
    }

    static func srtcp(_ packets: [RTCPPacket], _ srtp: SRTPSession) throws -> ByteBuffer {
        let compound = RTCPCompoundPacket(packets: packets)
        var buffer = ByteBuffer()
        compound.write(to: &buffer)
        try srtp.protectRTCP(&buffer)
        return buffer
    }

    @Test func videoStartsAtAKeyFrameAndNACKsAreAnsweredOnRTXWithTheOriginalSequenceNumber() throws {
        let (sender, wire, peerIn, peerOut) = try Self.make(rtx: true)
        sender.send(Self.frame(ptsNanos: 0, key: false), nowNanos: 0)
        #expect(wire.datagrams.isEmpty, "nothing before the first key frame")
        sender.send(Self.frame(ptsNanos: 33_000_000, key: true), nowNanos: 1)
        let sent = try Self.rtp(wire.datagrams, peerIn)
        #expect(sent.count == 4, "STAP-A (SPS, PPS) + three FU-A")
        #expect(sent.allSatisfy { $0.header.ssrc == Self.videoSSRC && $0.header.payloadType == 102 })
        wire.datagrams.removeAll()

        let lost = [sent[1].header.sequenceNumber, sent[3].header.sequenceNumber]
        let nack = try GenericNACK(senderSSRC: Self.viewerSSRC, mediaSSRC: Self.videoSSRC, lostSequenceNumbers: lost)
        let feedback = sender.receiveRTCP(try Self.srtcp([.genericNACK(nack)], peerOut), nowNanos: 2)
        #expect(feedback == WebRTCMediaSender.Feedback())
        let resent = try Self.rtp(wire.datagrams, peerIn)
        #expect(resent.map(\.header.ssrc) == [Self.rtxSSRC, Self.rtxSSRC])
        #expect(resent.map(\.header.payloadType) == [103, 103])
        let unwrapped = try resent.map { try RTXPacketizer.unwrap($0, originalSSRC: Self.videoSSRC, originalPayloadType: 102) }
        #expect(unwrapped == [sent[1], sent[3]], "the OSN and payload restore the originals")
        #expect(sender.statistics.rtxPacketsSent == 2)
        #expect(sender.statistics.video?.packetsRetransmitted == 2)
    }

    @Test func withoutRTXNACKedPacketsGoAgainAsTheyWere() throws {
        let keys = SRTPKeyingMaterial.random()
        let (sender, wire, peerIn, peerOut) = try Self.make(rtx: false, ours: keys)
        sender.send(Self.frame(ptsNanos: 0, key: true), nowNanos: 0)
        let sent = try Self.rtp(wire.datagrams, peerIn)
        wire.datagrams.removeAll()
        let nack = try GenericNACK(senderSSRC: Self.viewerSSRC, mediaSSRC: Self.videoSSRC, lostSequenceNumbers: [sent[2].header.sequenceNumber])
        _ = sender.receiveRTCP(try Self.srtcp([.genericNACK(nack)], peerOut), nowNanos: 1)
        // A fresh receiver context: the peer never got the original (its replay window would refuse a copy).
        let peer = try SRTPSession(keyingMaterial: keys, role: .receiver)
        #expect(try Self.rtp(wire.datagrams, peer) == [sent[2]])
        #expect(sender.statistics.rtxPacketsSent == 0)
        #expect(sender.statistics.video?.packetsRetransmitted == 1)
    }

    @Test(arguments: [(VideoRotation.none, VideoOrientation.Rotation.degrees0), (.clockwise90, .degrees90),
                      (.clockwise180, .degrees180), (.clockwise270, .degrees270)])
    func rotationGoesInTheOrientationExtensionOfEachFramesLastPacket(rotation: VideoRotation, expected: VideoOrientation.Rotation) throws {
        let (sender, wire, peerIn, _) = try Self.make(orientationID: 3)
        #expect(sender.carriesRotation)
        sender.send(Self.frame(ptsNanos: 0, key: true, rotation: rotation), nowNanos: 0)
        let sent = try Self.rtp(wire.datagrams, peerIn)
        #expect(sent.dropLast().allSatisfy { $0.header.headerExtension == nil })
        let element = try #require(sent.last?.header.headerExtension?.element(id: 3))
        var data = element
        #expect(try VideoOrientation(from: &data).rotation == expected)
    }

    /// A peer that cannot turn the picture starts at the first upright key frame (the one the
    /// encoder makes when it switches to turning pixels), and is never sent an extension.
    @Test func withoutOrientationVideoStartsAtAnUprightKeyFrameAndNothingIsSignalled() throws {
        let (sender, wire, peerIn, _) = try Self.make(orientationID: nil)
        #expect(!sender.carriesRotation)
        sender.send(Self.frame(ptsNanos: 0, key: true, rotation: .clockwise90), nowNanos: 0)
        #expect(wire.datagrams.isEmpty, "a sideways key frame is not a start")
        sender.send(Self.frame(ptsNanos: 33_000_000, key: false), nowNanos: 1)
        sender.send(Self.frame(ptsNanos: 66_000_000, key: true), nowNanos: 2)
        sender.send(Self.frame(ptsNanos: 99_000_000, key: false), nowNanos: 3)
        let sent = try Self.rtp(wire.datagrams, peerIn)
        #expect(sent.count == 5, "STAP-A + three FU-A of the upright key frame, then the P frame")
        #expect(sent.allSatisfy { $0.header.headerExtension == nil })
    }

    @Test func opusFramesGoOnTheAudioStreamOnTheCaptureTimelineWithTheirOwnSenderReport() throws {
        let (sender, wire, peerIn, _) = try Self.make(audio: true)
        sender.send(Self.frame(ptsNanos: 1_000_000_000, key: true), nowNanos: 0)
        for index in 0..<3 {
            let pts = 1_000_000_000 + Int64(index) * 20_000_000
            sender.send(EncodedAudioFrame(codec: .opus, data: [0xFC, 0xFF, 0xFE, UInt8(index)], ptsNanos: pts, sampleCount: 960,
                                          durationNanos: 20_000_000), nowNanos: 1)
        }
        let packets = try Self.rtp(wire.datagrams, peerIn)
        let audio = packets.filter { $0.header.ssrc == Self.audioSSRC }
        #expect(audio.count == 3)
        #expect(audio.allSatisfy { $0.header.payloadType == 111 && $0.payload.readableBytes == 4 })
        // 20 ms at 48 kHz per frame.
        #expect(audio[1].header.timestamp &- audio[0].header.timestamp == 960)
        #expect(audio[2].header.sequenceNumber &- audio[0].header.sequenceNumber == 2)

        wire.datagrams.removeAll()
        sender.tick(nowNanos: 2_000_000_000)
        let reports = try wire.datagrams.map { datagram -> RTCPCompoundPacket in
            var buffer = datagram
            try peerIn.unprotectRTCP(&buffer)
            return try RTCPCompoundPacket(from: &buffer)
        }
        let reporters = reports.compactMap { compound -> UInt32? in
            if case .senderReport(let report) = compound.packets.first { return report.ssrc }
            return nil
        }
        #expect(Set(reporters) == [Self.videoSSRC, Self.audioSSRC], "one SR per stream")
    }

    @Test func rembAndKeyFrameRequestsComeBackToTheOwnerAndForgedRTCPIsDropped() throws {
        let (sender, _, _, peerOut) = try Self.make()
        sender.send(Self.frame(ptsNanos: 0, key: true), nowNanos: 0)
        let remb = try ReceiverEstimatedMaximumBitrate(senderSSRC: Self.viewerSSRC, bitrateBitsPerSecond: 800_000, ssrcs: [Self.videoSSRC])
        let pli = PictureLossIndication(senderSSRC: Self.viewerSSRC, mediaSSRC: Self.videoSSRC)
        // Past the limiter's interval after the key frame above.
        let feedback = sender.receiveRTCP(try Self.srtcp([.receiverEstimatedMaximumBitrate(remb), .pictureLossIndication(pli)], peerOut),
                                          nowNanos: 1_000_000_000)
        #expect(feedback == WebRTCMediaSender.Feedback(requestKeyFrame: true, estimatedBitrateBitsPerSecond: 800_000))

        var forged = ByteBuffer()
        RTCPCompoundPacket(packets: [.pictureLossIndication(pli)]).write(to: &forged)
        #expect(sender.receiveRTCP(forged, nowNanos: 3_000_000_000) == WebRTCMediaSender.Feedback(), "plain RTCP does not authenticate")
        #expect(sender.statistics.video?.rtcpDropped == 1)
    }

    /// Receiver reports about our video acknowledge the bytes of the packets they name; a report
    /// block about another SSRC (audio, or a stranger) acknowledges nothing; retransmissions are
    /// not counted as sent media.
    @Test func receiverReportsAboutOurVideoAcknowledgeItsBytes() throws {
        let (sender, wire, peerIn, peerOut) = try Self.make(rtx: true, audio: true)
        sender.send(Self.frame(ptsNanos: 0, key: true), nowNanos: 0)
        let sent = try Self.rtp(wire.datagrams, peerIn)
        let wireBytes = wire.datagrams.reduce(Int64(0)) { $0 + Int64($1.readableBytes) }
        #expect(sender.videoReceiverReports.bytesSent == wireBytes, "every video datagram, SRTP tag included")

        func block(_ ssrc: UInt32, _ sequence: UInt16) -> ReceptionReport {
            ReceptionReport(ssrc: ssrc, fractionLost: 0, cumulativeLost: 0, extendedHighestSequenceNumber: UInt32(sequence), jitter: 0,
                            lastSenderReport: 0, delaySinceLastSenderReport: 0)
        }
        let strangers = try ReceiverReport(ssrc: Self.viewerSSRC, reports: [block(Self.audioSSRC, sent[3].header.sequenceNumber),
                                                                            block(0x5EED_0001, sent[3].header.sequenceNumber)])
        _ = sender.receiveRTCP(try Self.srtcp([.receiverReport(strangers)], peerOut), nowNanos: 1)
        #expect(sender.videoReceiverReports.bytesAcknowledged == 0, "no block was about our video")

        let ours = try ReceiverReport(ssrc: Self.viewerSSRC, reports: [block(Self.videoSSRC, sent[1].header.sequenceNumber)])
        _ = sender.receiveRTCP(try Self.srtcp([.receiverReport(ours)], peerOut), nowNanos: 2)
        let throughSecond = Int64(wire.datagrams[0].readableBytes + wire.datagrams[1].readableBytes)
        #expect(sender.videoReceiverReports.bytesAcknowledged == throughSecond)

        wire.datagrams.removeAll()
        let nack = try GenericNACK(senderSSRC: Self.viewerSSRC, mediaSSRC: Self.videoSSRC, lostSequenceNumbers: [sent[2].header.sequenceNumber])
        _ = sender.receiveRTCP(try Self.srtcp([.genericNACK(nack)], peerOut), nowNanos: 3)
        #expect(wire.datagrams.count == 1, "the retransmission went out")
        #expect(sender.videoReceiverReports.bytesSent == wireBytes, "a retransmission is not new media")
    }
}
