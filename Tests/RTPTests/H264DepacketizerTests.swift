import NIOCore
import Testing
@testable import RTP

@Suite("H.264 depacketizer")
struct H264DepacketizerTests {
    /// Packets of one key frame (STAP-A + 2 FU-A) and one P frame, sequence numbers from 65534 (wrap).
    static func stream() throws -> (packets: [RTPPacket], keyFrame: H264AccessUnit, pFrame: H264AccessUnit) {
        var packetizer = try RTPPacketizer(
            ssrc: 1, payloadType: 96, payloader: try H264Payloader(maxPayloadSize: 16),
            sequencer: RTPSequencer(start: 65534), timestampOffset: 0
        )
        let keyUnits = [H264Samples.sps, H264Samples.pps, H264Samples.idr]
        let packets = try packetizer.packetize(keyUnits, captureTimeNanos: 0)
            + packetizer.packetize([H264Samples.slice], captureTimeNanos: 1_000_000_000)
        return (
            packets,
            H264AccessUnit(rtpTimestamp90k: 0, nalUnits: keyUnits),
            H264AccessUnit(rtpTimestamp90k: 90000, nalUnits: [H264Samples.slice])
        )
    }

    static func push(_ packets: [RTPPacket], into depacketizer: inout H264Depacketizer) throws -> [H264DepacketizerOutput] {
        var outputs: [H264DepacketizerOutput] = []
        for packet in packets { outputs += try depacketizer.push(packet) }
        return outputs
    }

    /// An RTP packet with the given payload.
    static func packet(_ sequenceNumber: UInt16, _ payload: String, marker: Bool = false, timestamp: UInt32 = 0) -> RTPPacket {
        RTPPacket(
            header: try! RTPHeader(marker: marker, payloadType: 96, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: 1),
            payload: bytes(payload)
        )
    }

    @Test func reassemblesWhatThePayloaderSplit() throws {
        let (packets, keyFrame, pFrame) = try Self.stream()
        #expect(packets.count == 4)
        var depacketizer = H264Depacketizer()
        let outputs = try Self.push(packets, into: &depacketizer)
        #expect(outputs == [.accessUnit(keyFrame), .accessUnit(pFrame)])
        #expect(keyFrame.isKeyFrame)
        #expect(!pFrame.isKeyFrame)
    }

    @Test func sequenceGapDropsTheAccessUnit() throws {
        let (packets, _, pFrame) = try Self.stream()
        var depacketizer = H264Depacketizer()
        // Lose the first FU-A fragment (seq 65535).
        let outputs = try Self.push([packets[0], packets[2], packets[3]], into: &depacketizer)
        #expect(outputs == [.lost(.sequenceGap(expected: 65535, received: 0)), .accessUnit(pFrame)])
    }

    @Test func lostMarkerPacketDropsBothNeighbours() throws {
        let (packets, _, _) = try Self.stream()
        var depacketizer = H264Depacketizer()
        // Lose the last fragment (the key frame's marker): the P frame after the gap may be damaged too.
        let outputs = try Self.push([packets[0], packets[1], packets[3]], into: &depacketizer)
        #expect(outputs == [.lost(.sequenceGap(expected: 0, received: 1))])
    }

    @Test func missingFragmentStart() throws {
        var depacketizer = H264Depacketizer()
        // FU indicator NRI=3 type=28 | FU header S=0 E=1 type=5
        let outputs = try depacketizer.push(Self.packet(10, "7C 45 01 02", marker: true))
        #expect(outputs == [.lost(.missingFragmentStart)])
    }

    @Test func repeatedFragmentStart() throws {
        var depacketizer = H264Depacketizer()
        // Two FU headers with S=1 in a row, no gap.
        let outputs = try Self.push([Self.packet(10, "7C 85 01"), Self.packet(11, "7C 85 02")], into: &depacketizer)
        #expect(outputs == [.lost(.repeatedFragmentStart)])
        // Discards until the marker, then recovers.
        let after = try Self.push(
            [Self.packet(12, "7C 45 03", marker: true), Self.packet(13, "41 01", marker: true, timestamp: 3000)],
            into: &depacketizer
        )
        #expect(after == [.accessUnit(H264AccessUnit(rtpTimestamp90k: 3000, nalUnits: [bytes("41 01")]))])
    }

    @Test func fragmentLeftOpenByMarker() throws {
        var depacketizer = H264Depacketizer()
        let outputs = try Self.push([Self.packet(1, "7C 85 01"), Self.packet(2, "7C 05 02", marker: true)], into: &depacketizer)
        #expect(outputs == [.lost(.incompleteFragment)])
    }

    @Test func fragmentInterruptedBySingleNALUnit() throws {
        var depacketizer = H264Depacketizer()
        let outputs = try Self.push([Self.packet(1, "7C 85 01"), Self.packet(2, "41 01", marker: true)], into: &depacketizer)
        #expect(outputs == [.lost(.incompleteFragment)])
    }

    @Test func timestampChangeWithoutMarkerClosesTheUnit() throws {
        var depacketizer = H264Depacketizer()
        let outputs = try Self.push(
            [Self.packet(1, "41 01", timestamp: 0), Self.packet(2, "41 02", marker: true, timestamp: 3000)],
            into: &depacketizer
        )
        #expect(outputs == [
            .accessUnit(H264AccessUnit(rtpTimestamp90k: 0, nalUnits: [bytes("41 01")])),
            .accessUnit(H264AccessUnit(rtpTimestamp90k: 3000, nalUnits: [bytes("41 02")])),
        ])
    }

    @Test func lateAndDuplicatePacketsAreIgnored() throws {
        var depacketizer = H264Depacketizer()
        _ = try depacketizer.push(Self.packet(5, "41 01"))
        #expect(try depacketizer.push(Self.packet(5, "41 01")).isEmpty)
        #expect(try depacketizer.push(Self.packet(4, "41 01")).isEmpty)
        let outputs = try depacketizer.push(Self.packet(6, "41 02", marker: true))
        #expect(outputs == [.accessUnit(H264AccessUnit(rtpTimestamp90k: 0, nalUnits: [bytes("41 01"), bytes("41 02")]))])
    }

    @Test func accessUnitSizeIsBounded() throws {
        var depacketizer = H264Depacketizer(maxAccessUnitSize: 4)
        let outputs = try Self.push([Self.packet(1, "41 01 02"), Self.packet(2, "41 03 04", marker: true)], into: &depacketizer)
        #expect(outputs == [.lost(.accessUnitTooLarge(limit: 4))])
    }

    static let malformed: [(String, String, RTPError)] = [
        ("empty payload", "", .truncated(needed: 1, available: 0)),
        // STAP-A, NALU size 5 but 2 bytes follow
        ("STAP-A overrun", "78 00 05 67 42", .truncated(needed: 5, available: 2)),
        // STAP-A with a zero-length unit
        ("STAP-A zero length", "78 00 00", .invalidLength(field: "STAP-A NAL unit", length: 0)),
        // STAP-A header only
        ("STAP-A empty", "78", .invalidLength(field: "STAP-A", length: 0)),
        // FU-A without FU header
        ("FU-A too short", "7C", .truncated(needed: 1, available: 0)),
        // FU header with S=1 and E=1
        ("FU-A start and end", "7C C5 01", .valueOutOfRange(field: "FU header with S and E", value: 0xC5)),
        // type 25 STAP-B, 26 MTAP16, 29 FU-B, 0 reserved
        ("STAP-B", "79 00", .unsupportedNALUnitType(25)),
        ("MTAP16", "7A 00", .unsupportedNALUnitType(26)),
        ("FU-B", "7D 00", .unsupportedNALUnitType(29)),
        ("type 0", "00 00", .unsupportedNALUnitType(0)),
    ]

    @Test(arguments: malformed.indices)
    func rejectsMalformedPayloads(index: Int) throws {
        let (name, payload, expected) = Self.malformed[index]
        var depacketizer = H264Depacketizer()
        #expect(throws: expected, "\(name)") { try depacketizer.push(Self.packet(1, payload)) }
        // The damaged unit is discarded up to its marker; the next one decodes.
        #expect(try depacketizer.push(Self.packet(2, "41 01", marker: true)).isEmpty)
        let next = try depacketizer.push(Self.packet(3, "41 02", marker: true, timestamp: 3000))
        #expect(next == [.accessUnit(H264AccessUnit(rtpTimestamp90k: 3000, nalUnits: [bytes("41 02")]))])
    }

    @Test func annexBOutput() {
        let unit = H264AccessUnit(rtpTimestamp90k: 0, nalUnits: [bytes("67 42"), bytes("65 88")])
        #expect(unit.annexB() == bytes("00 00 00 01 67 42 00 00 00 01 65 88"))
    }
}
