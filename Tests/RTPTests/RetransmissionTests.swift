import NIOCore
import Testing
@testable import RTP

@Suite("Send history, RTX, key frame requests")
struct RetransmissionTests {
    static func packet(_ sequenceNumber: UInt16, payload: String = "AA") -> RTPPacket {
        RTPPacket(
            header: try! RTPHeader(marker: true, payloadType: 96, sequenceNumber: sequenceNumber, timestamp: 1234, ssrc: 0x1111),
            payload: bytes(payload)
        )
    }

    @Test(arguments: [(0, 1), (1, 1), (5, 8), (8, 8), (1000, 1024), (1 << 20, 32768)])
    func capacityRoundsToAPowerOfTwo(requested: Int, actual: Int) {
        #expect(RTPSendHistory(capacity: requested).capacity == actual)
    }

    /// The slot table grows as more packets are held at once (across the sequence wrap, each
    /// still found), up to the capacity; forgetting keeps a short history's table small.
    @Test func theTableGrowsOnlyAsFarAsThePacketsHeld() {
        var history = RTPSendHistory(capacity: 1024)
        var sequenceNumber: UInt16 = 65500
        for sent in Int64(0)..<200 {
            history.insert(Self.packet(sequenceNumber), sentNanos: sent)
            history.forget(sentBefore: sent - 49)
            sequenceNumber &+= 1
        }
        #expect(history.allocatedSlots == 64, "50 packets held at a time fit the first table")
        for sent in Int64(200)..<270 { history.insert(Self.packet(sequenceNumber), sentNanos: sent); sequenceNumber &+= 1 }
        #expect(history.allocatedSlots == 128 && history.capacity == 1024)
        for held in 0..<100 {
            let number = sequenceNumber &- UInt16(held + 1)
            #expect(history.packet(sequenceNumber: number)?.header.sequenceNumber == number)
        }
        for _ in 0..<2000 { history.insert(Self.packet(sequenceNumber), sentNanos: 300); sequenceNumber &+= 1 }
        #expect(history.allocatedSlots == 1024)
        #expect(history.packet(sequenceNumber: sequenceNumber &- 1024) != nil && history.packet(sequenceNumber: sequenceNumber &- 1025) == nil)
    }

    @Test func keepsTheLastNAcrossTheSequenceWrap() {
        var history = RTPSendHistory(capacity: 8)
        var sequenceNumber: UInt16 = 65530
        for _ in 0..<12 {
            history.insert(Self.packet(sequenceNumber), sentNanos: 0)
            sequenceNumber &+= 1
        }
        // Sent 65530…65535, 0…5; the last 8 are 65534…5.
        for held: UInt16 in [65534, 65535, 0, 1, 2, 3, 4, 5] {
            #expect(history.packet(sequenceNumber: held)?.header.sequenceNumber == held)
        }
        for evicted: UInt16 in [65530, 65531, 65532, 65533, 6, 100] {
            #expect(history.packet(sequenceNumber: evicted) == nil)
        }
    }

    /// Packets sent before the cutoff are let go, oldest first, across the sequence wrap and after
    /// the ring itself evicted some; those sent since stay, and a later cutoff takes more.
    @Test func forgetLetsGoOfThePacketsSentBeforeTheCutoff() {
        var history = RTPSendHistory(capacity: 8)
        var sequenceNumber: UInt16 = 65530
        for sent in Int64(0)..<12 {
            history.insert(Self.packet(sequenceNumber), sentNanos: sent * 10)
            sequenceNumber &+= 1
        }
        // Held: 65534…5, sent at 40…110.
        history.forget(sentBefore: 65)
        for gone: UInt16 in [65534, 65535, 0] { #expect(history.packet(sequenceNumber: gone) == nil, "\(gone)") }
        for held: UInt16 in [1, 2, 3, 4, 5] { #expect(history.packet(sequenceNumber: held)?.header.sequenceNumber == held, "\(held)") }
        history.forget(sentBefore: 65)
        #expect(history.packet(sequenceNumber: 1) != nil, "nothing more is older")
        history.insert(Self.packet(6), sentNanos: 120)
        history.forget(sentBefore: 115)
        #expect((0...5).allSatisfy { history.packet(sequenceNumber: UInt16($0)) == nil })
        #expect(history.packetToResend(sequenceNumber: 6, nowNanos: 120, minimumIntervalNanos: 1) == .resend(Self.packet(6)))
        history.forget(sentBefore: 1_000)
        history.insert(Self.packet(40), sentNanos: 1_000)
        #expect(history.packet(sequenceNumber: 6) == nil && history.packet(sequenceNumber: 40) != nil, "an emptied history starts again")
    }

    /// At least a second, and at least three round trips on a long path (libwebrtc's rule).
    @Test(arguments: [(nil, 1_000_000_000), (Int64(200_000_000), 1_000_000_000), (Int64(500_000_000), 1_500_000_000)] as [(Int64?, Int64)])
    func packetsAreKeptASecondOrThreeRoundTrips(roundTripNanos: Int64?, keptNanos: Int64) {
        #expect(RTPSendHistory.keepNanos(roundTripNanos: roundTripNanos) == keptNanos)
    }

    /// A packet named in NACK after NACK goes again at most once per interval; a new packet in
    /// its slot starts afresh.
    @Test func aPacketIsResentAtMostOncePerInterval() {
        var history = RTPSendHistory(capacity: 8)
        history.insert(Self.packet(3), sentNanos: 0)
        let interval: Int64 = 100_000_000
        var answers: [RTPSendHistory.ResendAnswer] = []
        for now in stride(from: Int64(0), through: 250_000_000, by: 25_000_000) {
            answers.append(history.packetToResend(sequenceNumber: 3, nowNanos: now, minimumIntervalNanos: interval))
        }
        let resentAt = answers.enumerated().filter { if case .resend = $0.element { true } else { false } }.map { Int64($0.offset) * 25_000_000 }
        #expect(resentAt == [0, 100_000_000, 200_000_000])
        #expect(answers.filter { $0 == .tooSoon }.count == 8)
        #expect(history.packetToResend(sequenceNumber: 4, nowNanos: 0, minimumIntervalNanos: interval) == .unavailable)
        history.insert(Self.packet(11), sentNanos: 0)
        #expect(history.packetToResend(sequenceNumber: 11, nowNanos: 210_000_000, minimumIntervalNanos: interval) == .resend(Self.packet(11)),
                "11 took 3's slot: it was never resent")
    }

    @Test func rtxWrapsWithOriginalSequenceNumber() throws {
        var rtx = try RTXPacketizer(ssrc: 0x2222, payloadType: 97, sequencer: RTPSequencer(start: 500))
        let original = Self.packet(0xABCD, payload: "01 02")
        let wrapped = rtx.wrap(original)
        // v=2 | m=1 pt=97 | rtx seq=500 | same timestamp | rtx ssrc | OSN=ABCD | original payload
        #expect(encode(wrapped.write) == bytes("80 E1 01 F4 | 00 00 04 D2 | 00 00 22 22 | AB CD | 01 02"))
        #expect(rtx.wrap(original).header.sequenceNumber == 501)
        #expect(try RTXPacketizer.unwrap(wrapped, originalSSRC: 0x1111, originalPayloadType: 96) == original)
    }

    @Test func rtxUnwrapNeedsTheOSN() {
        let short = Self.packet(1, payload: "01")
        #expect(throws: RTPError.truncated(needed: 2, available: 1)) {
            try RTXPacketizer.unwrap(short, originalSSRC: 1, originalPayloadType: 96)
        }
    }

    @Test func pliStormYieldsOneKeyFramePerInterval() {
        var limiter = KeyFrameRequestLimiter(minimumIntervalNanos: 500_000_000)
        var granted: [Int64] = []
        // A PLI every 10 ms for 2 s.
        for now in stride(from: Int64(0), to: 2_000_000_000, by: 10_000_000) {
            if limiter.evaluate(.pictureLoss(senderSSRC: 9), nowNanos: now) == .requestKeyFrame { granted.append(now) }
        }
        #expect(granted == [0, 500_000_000, 1_000_000_000, 1_500_000_000])
    }

    @Test func suppressedRequestsSayUntilWhen() {
        var limiter = KeyFrameRequestLimiter(minimumIntervalNanos: 100)
        #expect(limiter.evaluate(.pictureLoss(senderSSRC: 1), nowNanos: 1000) == .requestKeyFrame)
        #expect(limiter.evaluate(.pictureLoss(senderSSRC: 2), nowNanos: 1050) == .suppressed(untilNanos: 1100))
        limiter.keyFrameSent(nowNanos: 1200)
        #expect(limiter.evaluate(.pictureLoss(senderSSRC: 1), nowNanos: 1250) == .suppressed(untilNanos: 1300))
    }

    @Test func firIsDeduplicatedBySequenceNumberPerSender() {
        var limiter = KeyFrameRequestLimiter(minimumIntervalNanos: 100)
        #expect(limiter.evaluate(.fullIntra(senderSSRC: 1, sequenceNumber: 7), nowNanos: 0) == .requestKeyFrame)
        // A retransmitted FIR, even long after, is not a new request.
        #expect(limiter.evaluate(.fullIntra(senderSSRC: 1, sequenceNumber: 7), nowNanos: 10_000) == .duplicateFIR)
        #expect(limiter.evaluate(.fullIntra(senderSSRC: 2, sequenceNumber: 7), nowNanos: 10_000) == .requestKeyFrame)
        #expect(limiter.evaluate(.fullIntra(senderSSRC: 1, sequenceNumber: 8), nowNanos: 20_000) == .requestKeyFrame)
    }

    @Test func requestsAreExtractedForOurSSRCOnly() throws {
        let pli = RTCPPacket.pictureLossIndication(PictureLossIndication(senderSSRC: 5, mediaSSRC: 0xAA))
        #expect(KeyFrameRequest.requests(in: pli, mediaSSRC: 0xAA) == [.pictureLoss(senderSSRC: 5)])
        #expect(KeyFrameRequest.requests(in: pli, mediaSSRC: 0xBB).isEmpty)
        let fir = RTCPPacket.fullIntraRequest(try FullIntraRequest(senderSSRC: 5, entries: [
            FullIntraRequestEntry(ssrc: 0xAA, sequenceNumber: 3), FullIntraRequestEntry(ssrc: 0xBB, sequenceNumber: 4),
        ]))
        #expect(KeyFrameRequest.requests(in: fir, mediaSSRC: 0xBB) == [.fullIntra(senderSSRC: 5, sequenceNumber: 4)])
        #expect(KeyFrameRequest.requests(in: .receiverReport(try ReceiverReport(ssrc: 1)), mediaSSRC: 0xAA).isEmpty)
    }
}

@Suite("RFC 7983 demultiplexing")
struct RTPDemultiplexerTests {
    static let cases: [(String, RTPDemultiplexedPacketKind)] = [
        // STUN binding request: first byte 0
        ("00 01 00 00", .stun),
        ("03 00", .stun),
        ("10 00", .zrtp),
        // DTLS handshake record: content type 22
        ("16 FE FD", .dtls),
        ("3F 00", .dtls),
        ("40 00", .turnChannel),
        // v=2, pt=96
        ("80 60 00 01", .rtp),
        // v=2, m=1 pt=96 (0xE0) stays RTP
        ("80 E0 00 01", .rtp),
        // v=2, PT=200 SR / 206 PSFB
        ("80 C8 00 06", .rtcp),
        ("81 CE 00 02", .rtcp),
        // 223 is the last RTCP value, 224 is RTP again (m=1 pt=96+...)
        ("80 DF", .rtcp),
        ("80 E0", .rtp),
        ("BF C0", .rtcp),
        ("C0 60", .unknown),
        ("50 00", .unknown),
        // RTP range but no second byte
        ("80", .unknown),
        ("", .unknown),
    ]

    @Test(arguments: cases.indices)
    func classifiesByFirstBytes(index: Int) {
        let (hex, kind) = Self.cases[index]
        #expect(RTPDemultiplexedPacketKind(datagram: bytes(hex)) == kind)
    }
}
