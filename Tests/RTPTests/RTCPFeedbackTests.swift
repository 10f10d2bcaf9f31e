import MediaCore
import NIOCore
import Testing
import TestSupport
@testable import RTP

@Suite("RTCP semantics: NACK lists, REMB, TWCC, RTT, NTP, compound")
struct RTCPFeedbackTests {
    static let nackLists: [(lost: [UInt16], pairs: [NACKPair])] = [
        ([10, 11, 13], [NACKPair(packetID: 10, lostPacketBitmask: 0b101)]),
        // BLP bit 15 is PID + 16: the last number one pair covers
        ([1, 17], [NACKPair(packetID: 1, lostPacketBitmask: 0x8000)]),
        ([1, 18], [NACKPair(packetID: 1, lostPacketBitmask: 0), NACKPair(packetID: 18, lostPacketBitmask: 0)]),
        // wraps: 0 and 1 are 1 and 2 after 65535
        ([65535, 0, 1, 17, 40], [
            NACKPair(packetID: 65535, lostPacketBitmask: 0b11),
            NACKPair(packetID: 17, lostPacketBitmask: 0),
            NACKPair(packetID: 40, lostPacketBitmask: 0),
        ]),
        ([5, 5], [NACKPair(packetID: 5, lostPacketBitmask: 0)]),
        ([], []),
    ]

    @Test(arguments: nackLists.indices)
    func buildsNACKsFromLostSequenceNumbers(index: Int) throws {
        let (lost, pairs) = Self.nackLists[index]
        let nack = try GenericNACK(senderSSRC: 1, mediaSSRC: 2, lostSequenceNumbers: lost)
        #expect(nack.pairs == pairs)
        var unique: [UInt16] = []
        for number in lost where unique.last != number { unique.append(number) }
        #expect(nack.lostSequenceNumbers == unique)
    }

    @Test func nackBitmaskExpandsToSequenceNumbers() {
        #expect(NACKPair(packetID: 65534, lostPacketBitmask: 0x8003).lostSequenceNumbers == [65534, 65535, 0, 14])
    }

    static let rembBitrates: [(UInt64, UInt64)] = [
        (0, 0),
        (262_143, 262_143),
        // 2^18 needs exp=1
        (262_144, 262_144),
        // 1 000 001 rounds down to a multiple of 4 (exp=2)
        (1_000_001, 1_000_000),
        (UInt64.max, 0x3FFFF << 46),
    ]

    @Test(arguments: rembBitrates.indices)
    func rembMantissaAndExponent(index: Int) throws {
        let (requested, expressed) = Self.rembBitrates[index]
        let remb = try ReceiverEstimatedMaximumBitrate(senderSSRC: 1, bitrateBitsPerSecond: requested, ssrcs: [])
        #expect(remb.bitrateBitsPerSecond == expressed)
        var wire = encode(remb.write)
        #expect(try ReceiverEstimatedMaximumBitrate(from: &wire) == remb)
    }

    @Test func twccPacketResults() throws {
        var wire = RTCPSamples.vectors.first { $0.name == "TWCC two-bit vector" }!.wire
        let feedback = try TransportWideCCFeedback(from: &wire)
        #expect(feedback.packetResults == [
            TransportWideCCPacketResult(sequenceNumber: 10, status: .receivedSmallDelta, arrivalTimeMicros: 65_000),
            TransportWideCCPacketResult(sequenceNumber: 11, status: .receivedLargeDelta, arrivalTimeMicros: 67_000),
            TransportWideCCPacketResult(sequenceNumber: 12, status: .notReceived, arrivalTimeMicros: nil),
            TransportWideCCPacketResult(sequenceNumber: 13, status: .receivedSmallDelta, arrivalTimeMicros: 67_250),
        ])
    }

    @Test func twccRunLengthAcrossSequenceWrap() throws {
        let feedback = try TransportWideCCFeedback(
            senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 65535, packetStatusCount: 3, referenceTime: 0,
            feedbackPacketCount: 0, chunks: [.runLength(status: .receivedWithoutDelta, count: 3)], receiveDeltas: []
        )
        #expect(feedback.packetResults.map(\.sequenceNumber) == [65535, 0, 1])
        #expect(feedback.packetResults.allSatisfy { $0.arrivalTimeMicros == nil })
        var wire = encode(feedback.write)
        #expect(try TransportWideCCFeedback(from: &wire) == feedback)
    }

    @Test func twccRejectsInconsistentValues() {
        #expect(throws: RTPError.invalidLength(field: "TWCC receive deltas", length: 0)) {
            try TransportWideCCFeedback(
                senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, packetStatusCount: 1, referenceTime: 0,
                feedbackPacketCount: 0, chunks: [.runLength(status: .receivedSmallDelta, count: 1)], receiveDeltas: []
            )
        }
        #expect(throws: RTPError.invalidLength(field: "TWCC status vector", length: 1)) {
            try TransportWideCCFeedback(
                senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, packetStatusCount: 1, referenceTime: 0,
                feedbackPacketCount: 0, chunks: [.oneBitVector([.receivedLargeDelta])], receiveDeltas: []
            )
        }
    }

    @Test func roundTripTimeFromLSRAndDLSR() {
        let srSentNanos: Int64 = 1_700_000_000_000_000_000
        let lsr = NTPTimestamp(unixNanos: srSentNanos).middle32
        // The receiver held the SR for 1 s (DLSR 65536) and its report arrives 1.25 s after the SR left.
        let report = ReceptionReport(
            ssrc: 1, fractionLost: 0, cumulativeLost: 0, extendedHighestSequenceNumber: 0, jitter: 0,
            lastSenderReport: lsr, delaySinceLastSenderReport: 65536
        )
        #expect(report.roundTripTimeNanos(arrival: NTPTimestamp(unixNanos: srSentNanos + 1_250_000_000)) == 250_000_000)
        // Arriving before the receiver could have sent it: no RTT.
        #expect(report.roundTripTimeNanos(arrival: NTPTimestamp(unixNanos: srSentNanos + 500_000_000)) == nil)
        var noSR = report
        noSR.lastSenderReport = 0
        #expect(noSR.roundTripTimeNanos(arrival: NTPTimestamp(unixNanos: srSentNanos)) == nil)
    }

    @Test func cumulativeLostIsClampedTo24Bits() {
        var report = RTCPSamples.block
        report.cumulativeLost = 10_000_000
        #expect(report.cumulativeLost == 0x7F_FFFF)
        report.cumulativeLost = -10_000_000
        #expect(report.cumulativeLost == -0x80_0000)
        // 24-bit two's complement on the wire: 80 00 00
        #expect(encode(report.write).getSlice(at: 5, length: 3) == bytes("80 00 00"))
    }

    @Test func ntpFromUnixNanos() {
        #expect(NTPTimestamp(unixNanos: 0) == NTPTimestamp(seconds: 0x83AA_7E80, fraction: 0))
        #expect(NTPTimestamp(unixNanos: 1_500_000_000) == NTPTimestamp(seconds: 0x83AA_7E81, fraction: 0x8000_0000))
        // 1 ns before the epoch
        #expect(NTPTimestamp(unixNanos: -1) == NTPTimestamp(seconds: 0x83AA_7E7F, fraction: 0xFFFF_FFFB))
        #expect(NTPTimestamp(seconds: 0x0001_0002, fraction: 0x0003_0004).middle32 == 0x0002_0003)
    }

    @Test func ntpRoundTripsThroughUnixNanos() {
        var generator = SplitMix64(seed: 1)
        // Up to 2100, so both NTP eras are covered (era 1 starts in 2036).
        for _ in 0..<1000 {
            let nanos = Int64.random(in: 0...4_102_444_800_000_000_000, using: &generator)
            #expect(NTPTimestamp(unixNanos: nanos).unixNanos == nanos)
        }
    }

    @Test func compoundReportWithSDES() throws {
        let sr = RTCPSamples.vectors[0]
        let sdes = RTCPSamples.vectors[4]
        var wire = sr.wire
        wire.writeImmutableBuffer(sdes.wire)
        let datagram = wire
        let compound = try RTCPCompoundPacket(from: &wire, allowReducedSize: false)
        #expect(compound.packets == [sr.packet, sdes.packet])
        #expect(!compound.isReducedSize)
        #expect(encode(compound.write) == datagram)
        #expect(compound.encodedSize == datagram.readableBytes)
    }

    @Test func reducedSizeFeedbackAlone() throws {
        let pli = RTCPSamples.vectors[9]
        var wire = pli.wire
        let compound = try RTCPCompoundPacket(from: &wire)
        #expect(compound.packets == [pli.packet])
        #expect(compound.isReducedSize)
        var strict = pli.wire
        #expect(throws: RTPError.compoundMustStartWithReport(packetType: 206)) {
            try RTCPCompoundPacket(from: &strict, allowReducedSize: false)
        }
    }

    @Test func compoundRejectsPaddingBeforeTheLastPacket() {
        // RR with p=1 (padding 00 00 00 04) followed by a PLI
        var wire = bytes("A0 C9 00 02 00 00 00 01 00 00 00 04 | 81 CE 00 02 00 00 00 01 00 00 00 02")
        #expect(throws: RTPError.paddingBeforeLastPacket) { try RTCPCompoundPacket(from: &wire) }
    }

    @Test func compoundRejectsTrailingGarbage() {
        var wire = RTCPSamples.vectors[3].wire
        wire.writeBytes([0x80])
        #expect(throws: RTPError.truncated(needed: 4, available: 1)) { try RTCPCompoundPacket(from: &wire) }
    }

    @Test func compoundRejectsEmptyDatagram() {
        var wire = ByteBuffer()
        #expect(throws: RTPError.truncated(needed: 4, available: 0)) { try RTCPCompoundPacket(from: &wire) }
    }

    @Test func sdesLargerThanALengthFieldIsRejected() throws {
        let item = try SourceDescriptionItem(type: SourceDescriptionItem.typeName, text: String(repeating: "x", count: 255))
        // 1100 items × 257 bytes > 65536 words
        #expect(throws: RTPError.self) {
            try SourceDescription(chunks: [SourceDescriptionChunk(ssrc: 1, items: Array(repeating: item, count: 1100))])
        }
        #expect(throws: RTPError.invalidLength(field: "SDES item text", length: 256)) {
            try SourceDescriptionItem(type: 1, text: String(repeating: "x", count: 256))
        }
    }
}
