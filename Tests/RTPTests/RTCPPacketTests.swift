import MediaCore
import NIOCore
import Testing
@testable import RTP

struct RTCPVector: Sendable, CustomStringConvertible {
    let name: String
    let wire: ByteBuffer
    let packet: RTCPPacket
    var description: String { name }
}

enum RTCPSamples {
    static let block = ReceptionReport(
        ssrc: 2, fractionLost: 25, cumulativeLost: -2, extendedHighestSequenceNumber: 0x0001_0005,
        jitter: 32, lastSenderReport: 0x7E80_0000, delaySinceLastSenderReport: 65536
    )
    // ssrc=2 | fraction=25 cumulative=-2 (24-bit FFFFFE) | ext. highest seq | jitter=32 | LSR | DLSR=1 s
    static let blockWire = "00 00 00 02 | 19 FF FF FE | 00 01 00 05 | 00 00 00 20 | 7E 80 00 00 | 00 01 00 00"

    static let vectors: [RTCPVector] = [
        RTCPVector(
            name: "SR without blocks",
            // v=2 p=0 RC=0 | PT=200 SR | len=6 | ssrc=1 | NTP 1970-01-01T00:00:00.5 | rtp=1000 | packets=10 | octets=10000
            wire: bytes("80 C8 00 06 | 00 00 00 01 | 83 AA 7E 80 80 00 00 00 | 00 00 03 E8 | 00 00 00 0A | 00 00 27 10"),
            packet: .senderReport(try! SenderReport(
                ssrc: 1, ntpTimestamp: NTPTimestamp(unixNanos: 500_000_000), rtpTimestamp: 1000,
                packetCount: 10, octetCount: 10000
            ))
        ),
        RTCPVector(
            name: "SR with one block",
            // v=2 p=0 RC=1 | PT=200 SR | len=12 | sender info | report block
            wire: bytes("81 C8 00 0C | 00 00 00 01 | 83 AA 7E 80 00 00 00 00 | 00 00 03 E8 | 00 00 00 0A | 00 00 27 10 | " + blockWire),
            packet: .senderReport(try! SenderReport(
                ssrc: 1, ntpTimestamp: NTPTimestamp(unixNanos: 0), rtpTimestamp: 1000,
                packetCount: 10, octetCount: 10000, reports: [block]
            ))
        ),
        RTCPVector(
            name: "RR with one block",
            // v=2 p=0 RC=1 | PT=201 RR | len=7 | ssrc=1 | report block
            wire: bytes("81 C9 00 07 | 00 00 00 01 | " + blockWire),
            packet: .receiverReport(try! ReceiverReport(ssrc: 1, reports: [block]))
        ),
        RTCPVector(
            name: "empty RR",
            // v=2 p=0 RC=0 | PT=201 RR | len=1 | ssrc=1
            wire: bytes("80 C9 00 01 | 00 00 00 01"),
            packet: .receiverReport(try! ReceiverReport(ssrc: 1))
        ),
        RTCPVector(
            name: "SDES CNAME",
            // v=2 p=0 SC=1 | PT=202 SDES | len=3 | ssrc=1 | CNAME(1) len=4 "abcd" | null + pad to word
            wire: bytes("81 CA 00 03 | 00 00 00 01 | 01 04 61 62 63 64 | 00 00"),
            packet: .sourceDescription(try! SourceDescription(ssrc: 1, cname: "abcd"))
        ),
        RTCPVector(
            name: "SDES two chunks",
            // v=2 p=0 SC=2 | PT=202 | len=5 | ssrc=1, CNAME "ab", null+pad | ssrc=2, no items, null+pad
            wire: bytes("82 CA 00 05 | 00 00 00 01 | 01 02 61 62 | 00 00 00 00 | 00 00 00 02 | 00 00 00 00"),
            packet: .sourceDescription(try! SourceDescription(chunks: [
                SourceDescriptionChunk(ssrc: 1, items: [try! SourceDescriptionItem(type: 1, text: "ab")]),
                SourceDescriptionChunk(ssrc: 2, items: []),
            ]))
        ),
        RTCPVector(
            name: "BYE",
            // v=2 p=0 SC=1 | PT=203 BYE | len=1 | ssrc=1
            wire: bytes("81 CB 00 01 | 00 00 00 01"),
            packet: .goodbye(try! Goodbye(sources: [1]))
        ),
        RTCPVector(
            name: "BYE with reason",
            // v=2 p=0 SC=1 | PT=203 | len=3 | ssrc=1 | len=4 "bye!" + 3 zero pad
            wire: bytes("81 CB 00 03 | 00 00 00 01 | 04 62 79 65 21 00 00 00"),
            packet: .goodbye(try! Goodbye(sources: [1], reason: "bye!"))
        ),
        RTCPVector(
            name: "generic NACK",
            // v=2 p=0 FMT=1 | PT=205 RTPFB | len=3 | sender=1 | media=2 | PID=10 BLP=0b101 (11, 13)
            wire: bytes("81 CD 00 03 | 00 00 00 01 | 00 00 00 02 | 00 0A 00 05"),
            packet: .genericNACK(try! GenericNACK(senderSSRC: 1, mediaSSRC: 2, pairs: [NACKPair(packetID: 10, lostPacketBitmask: 5)]))
        ),
        RTCPVector(
            name: "PLI",
            // v=2 p=0 FMT=1 | PT=206 PSFB | len=2 | sender=1 | media=2
            wire: bytes("81 CE 00 02 | 00 00 00 01 | 00 00 00 02"),
            packet: .pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: 2))
        ),
        RTCPVector(
            name: "FIR",
            // v=2 p=0 FMT=4 | PT=206 PSFB | len=4 | sender=1 | media=0 | ssrc=2 | seq=7 reserved
            wire: bytes("84 CE 00 04 | 00 00 00 01 | 00 00 00 00 | 00 00 00 02 | 07 00 00 00"),
            packet: .fullIntraRequest(try! FullIntraRequest(senderSSRC: 1, entries: [FullIntraRequestEntry(ssrc: 2, sequenceNumber: 7)]))
        ),
        RTCPVector(
            name: "REMB 1 Mbit/s",
            // v=2 p=0 FMT=15 | PT=206 | len=5 | sender=1 | media=0 | "REMB" | num=1 exp=2 mantissa=250000 | ssrc=2
            wire: bytes("8F CE 00 05 | 00 00 00 01 | 00 00 00 00 | 52 45 4D 42 | 01 0B D0 90 | 00 00 00 02"),
            packet: .receiverEstimatedMaximumBitrate(try! ReceiverEstimatedMaximumBitrate(
                senderSSRC: 1, bitrateBitsPerSecond: 1_000_000, ssrcs: [2]
            ))
        ),
        RTCPVector(
            name: "TWCC two-bit vector",
            // v=2 p=0 FMT=15 | PT=205 | len=6 | sender=1 | media=2 | base=10 count=4 | ref=1 (64 ms) fb=5 |
            // chunk T=1 S=1 [small, large, not received, small, -, -, -] | deltas 04, 0008, 01 | 2 zero pad
            wire: bytes("8F CD 00 06 | 00 00 00 01 | 00 00 00 02 | 00 0A 00 04 | 00 00 01 05 | D8 40 | 04 | 00 08 | 01 | 00 00"),
            packet: .transportWideCC(try! TransportWideCCFeedback(
                senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 10, packetStatusCount: 4, referenceTime: 1,
                feedbackPacketCount: 5,
                chunks: [.twoBitVector([.receivedSmallDelta, .receivedLargeDelta, .notReceived, .receivedSmallDelta,
                                        .notReceived, .notReceived, .notReceived])],
                receiveDeltas: [.small(4), .large(8), .small(1)]
            ))
        ),
        RTCPVector(
            name: "TWCC run length and one-bit vector",
            // ... | base=0 count=5 | ref=-1 fb=0 | run T=0 S=01 len=2 | vector T=1 S=0 [0,1,1,0…] | deltas 01 02 03 04
            wire: bytes("8F CD 00 06 | 00 00 00 01 | 00 00 00 02 | 00 00 00 05 | FF FF FF 00 | 20 02 | 98 00 | 01 02 03 04"),
            packet: .transportWideCC(try! TransportWideCCFeedback(
                senderSSRC: 1, mediaSSRC: 2, baseSequenceNumber: 0, packetStatusCount: 5, referenceTime: -1,
                feedbackPacketCount: 0,
                chunks: [.runLength(status: .receivedSmallDelta, count: 2),
                         .oneBitVector([.notReceived, .receivedSmallDelta, .receivedSmallDelta]
                             + Array(repeating: .notReceived, count: 11))],
                receiveDeltas: [.small(1), .small(2), .small(3), .small(4)]
            ))
        ),
        RTCPVector(
            name: "APP is unknown",
            // v=2 p=0 subtype=0 | PT=204 APP | len=2 | ssrc=1 | name "name"
            wire: bytes("80 CC 00 02 | 00 00 00 01 | 6E 61 6D 65"),
            packet: .unknown(try! { var wire = bytes("80 CC 00 02 00 00 00 01 6E 61 6D 65"); return try RawRTCPPacket(from: &wire) }())
        ),
        RTCPVector(
            name: "XR with RRTR",
            // v=2 | PT=207 XR | len=4 | ssrc=2 | BT=4 RRTR, length 2 | NTP timestamp
            wire: bytes("80 CF 00 04 | 00 00 00 02 | 04 00 00 02 | E8 F1 23 45 80 00 00 01"),
            packet: .extendedReport(try! ExtendedReport(ssrc: 2, blocks: [.receiverReferenceTime(NTPTimestamp(seconds: 0xE8F1_2345, fraction: 0x8000_0001))]))
        ),
        RTCPVector(
            name: "XR with DLRR",
            // v=2 | PT=207 XR | len=5 | ssrc=1 | BT=5 DLRR, length 3 | ssrc=2 | LRR (middle of the RRTR above) | DLRR 1.5 s
            wire: bytes("80 CF 00 05 | 00 00 00 01 | 05 00 00 03 | 00 00 00 02 | 23 45 80 00 | 00 01 80 00"),
            packet: .extendedReport(try! ExtendedReport(ssrc: 1, blocks: [.delaySinceLastReceiverReport([
                .init(ssrc: 2, lastReceiverReport: 0x2345_8000, delay: ExtendedReport.DelaySinceLastReceiverReport.delay(nanos: 1_500_000_000)),
            ])]))
        ),
        RTCPVector(
            name: "XR keeps an unknown block",
            // v=2 | PT=207 XR | len=3 | ssrc=1 | BT=7 type-specific 1, length 1 | contents
            wire: bytes("80 CF 00 03 | 00 00 00 01 | 07 01 00 01 | AA BB CC DD"),
            packet: .extendedReport(try! ExtendedReport(ssrc: 1, blocks: [.unknown(type: 7, typeSpecific: 1, contents: bytes("AA BB CC DD"))]))
        ),
    ]
}

@Suite("RTCP packets")
struct RTCPPacketTests {
    @Test(arguments: RTCPSamples.vectors)
    func decodes(vector: RTCPVector) throws {
        var wire = vector.wire
        #expect(try RTCPPacket(from: &wire) == vector.packet)
        #expect(wire.readableBytes == 0)
    }

    @Test(arguments: RTCPSamples.vectors)
    func encodesByteForByte(vector: RTCPVector) {
        #expect(encode(vector.packet.write) == vector.wire)
        #expect(vector.packet.encodedSize == vector.wire.readableBytes)
    }

    @Test(arguments: RTCPSamples.vectors)
    func everyPrefixIsTruncated(vector: RTCPVector) {
        for prefix in prefixes(of: vector.wire) {
            var buffer = prefix
            do {
                _ = try RTCPPacket(from: &buffer)
                Issue.record("prefix of \(prefix.readableBytes) bytes decoded")
            } catch {
                guard case .truncated = error else {
                    Issue.record("prefix of \(prefix.readableBytes) bytes: \(error)")
                    continue
                }
            }
        }
    }

    @Test func otherApplicationLayerFeedbackIsUnknown() throws {
        // v=2 p=0 FMT=15 | PT=206 | len=3 | sender=1 | media=0 | identifier "ABCD"
        var wire = bytes("8F CE 00 03 | 00 00 00 01 | 00 00 00 00 | 41 42 43 44")
        guard case .unknown(let raw) = try RTCPPacket(from: &wire) else {
            Issue.record("not unknown")
            return
        }
        #expect(raw.header == RTCPHeader(count: 15, packetType: 206, length: 3))
    }

    @Test func unknownPacketKeepsItsPaddingVerbatim() throws {
        // v=2 p=1 | PT=204 APP | len=2 | ssrc=1 | 3 zero bytes + count 4... count 4 = the whole word
        let wire = bytes("A0 CC 00 02 | 00 00 00 01 | 00 00 00 04")
        var buffer = wire
        let packet = try RTCPPacket(from: &buffer)
        #expect(encode(packet.write) == wire)
    }

    @Test func paddedKnownPacketDecodesWithoutThePadding() throws {
        // v=2 p=1 RC=0 | PT=201 | len=2 | ssrc=1 | padding 00 00 00 04
        var wire = bytes("A0 C9 00 02 | 00 00 00 01 | 00 00 00 04")
        #expect(try RTCPPacket(from: &wire) == .receiverReport(try ReceiverReport(ssrc: 1)))
    }

    static let malformed: [(String, String, RTPError)] = [
        // v=0
        ("version 0", "00 C9 00 01 00 00 00 01", .unsupportedVersion(0)),
        // RR RC=1, no block
        ("missing report block", "81 C9 00 01 00 00 00 01", .truncated(needed: 24, available: 0)),
        // PLI with an extra word of FCI
        ("PLI with FCI", "81 CE 00 03 00 00 00 01 00 00 00 02 00 00 00 03",
         .invalidLength(field: "RTCP packet type 206", length: 16)),
        // FIR with half an entry
        ("FIR half entry", "84 CE 00 03 00 00 00 01 00 00 00 00 00 00 00 02", .invalidLength(field: "FIR FCI", length: 4)),
        // p=1, padding count 0
        ("padding count 0", "A0 C9 00 01 00 00 00 00", .invalidPadding(count: 0, available: 4)),
        // p=1, padding count 9 > 4 body bytes
        ("padding count too big", "A0 C9 00 01 00 00 00 09", .invalidPadding(count: 9, available: 4)),
        // REMB says 2 SSRCs, carries 1
        ("REMB count mismatch", "8F CE 00 05 00 00 00 01 00 00 00 00 52 45 4D 42 02 0B D0 90 00 00 00 02",
         .invalidLength(field: "REMB SSRC list", length: 4)),
        // REMB exp=63 mantissa=2 overflows 64 bits
        ("REMB overflow", "8F CE 00 04 00 00 00 01 00 00 00 00 52 45 4D 42 00 FC 00 02",
         .valueOutOfRange(field: "REMB exponent", value: 63)),
        // TWCC count=16 but chunks run out (run of 2, then a run of 0, then nothing)
        ("TWCC chunks short", "8F CD 00 05 00 00 00 01 00 00 00 02 00 00 00 10 00 00 00 00 20 02 00 00",
         .truncated(needed: 2, available: 0)),
        // TWCC count=2, run T=0 S=10 (large) len=2: two 2-byte deltas announced, room for one
        ("TWCC delta missing", "8F CD 00 05 00 00 00 01 00 00 00 02 00 00 00 02 00 00 00 00 40 02 00 01",
         .truncated(needed: 2, available: 0)),
        // SDES item without the terminating null octet
        ("SDES unterminated", "81 CA 00 02 00 00 00 01 01 02 61 62", .truncated(needed: 1, available: 0)),
        // BYE SC=2 with one SSRC
        ("BYE short", "82 CB 00 01 00 00 00 01", .truncated(needed: 8, available: 4)),
        // SR with 2 bytes of profile extension (made unaligned by padding count 2)
        // XR RRTR block of 3 words instead of 2
        ("XR RRTR length", "80 CF 00 05 00 00 00 02 04 00 00 03 00 00 00 00 00 00 00 00 00 00 00 00",
         .invalidLength(field: "XR RRTR block", length: 12)),
        // XR DLRR block of 2 words (not a multiple of 3)
        ("XR DLRR length", "80 CF 00 04 00 00 00 01 05 00 00 02 00 00 00 02 00 00 00 00",
         .invalidLength(field: "XR DLRR block", length: 8)),
        // XR block claims 2 words, the packet ends after its header
        ("XR block past the packet", "80 CF 00 02 00 00 00 02 04 00 00 02", .truncated(needed: 8, available: 0)),
        ("SR unaligned extension", "A0 C8 00 07 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 02",
         .invalidLength(field: "profile-specific extension", length: 2)),
    ]

    @Test(arguments: malformed.indices)
    func rejectsMalformed(index: Int) {
        let (name, hex, expected) = Self.malformed[index]
        var wire = bytes(hex)
        #expect(throws: expected, "\(name)") { try RTCPPacket(from: &wire) }
    }

    @Test func byeReasonThatGrowsPastItsLengthOctetIsRefused() {
        // BYE SC=1 | ssrc=1 | reason of 255 bytes FF: read leniently, each FF became U+FFFD, three
        // bytes, 765 in all, which the length octet cannot carry (writing the BYE back trapped).
        var wire = ByteBuffer(bytes: [0x81, 0xCB, 0x00, 0x41, 0, 0, 0, 1, 0xFF] + [UInt8](repeating: 0xFF, count: 255))
        #expect(throws: RTPError.invalidLength(field: "BYE reason", length: 765)) { try RTCPPacket(from: &wire) }
    }

    @Test func byeReasonOfInvalidUTF8IsReadLenientlyAndWritesBack() throws {
        // BYE SC=1 | ssrc=1 | reason length 1: FF | padding
        var wire = bytes("81 CB 00 02 00 00 00 01 01 FF 00 00")
        let packet = try RTCPPacket(from: &wire)
        #expect(packet == .goodbye(try Goodbye(sources: [1], reason: "\u{FFFD}")))
        var written = ByteBuffer()
        packet.write(to: &written)
        #expect(written.readableBytes == packet.encodedSize)
        #expect(try RTCPPacket(from: &written) == packet)
    }

    @Test func typedDecodersCheckTypeAndFormat() {
        var rr = bytes("80 C9 00 01 00 00 00 01")
        #expect(throws: RTPError.unexpectedPacketType(expected: 200, actual: 201)) { try SenderReport(from: &rr) }
        var fir = bytes("84 CE 00 04 00 00 00 01 00 00 00 00 00 00 00 02 07 00 00 00")
        #expect(throws: RTPError.unexpectedFeedbackFormat(expected: 1, actual: 4)) { try PictureLossIndication(from: &fir) }
    }
}
