import NIOCore
import Testing
@testable import RTP

struct RTPPacketVector: Sendable, CustomStringConvertible {
    let name: String
    let wire: ByteBuffer
    let packet: RTPPacket
    var description: String { name }
}

let rtpVectors: [RTPPacketVector] = {
    let cvo = try! RTPHeaderExtension(profile: 0xBEDE, data: bytes("30 0D 00 00"))
    let twoByte = try! RTPHeaderExtension(profile: 0x1000, data: bytes("05 02 AB CD"))
    return [
        RTPPacketVector(
            name: "minimal",
            // v=2, p=0, x=0, cc=0 | m=0, pt=96 | seq=1 | ts=10 | ssrc=0x12345678 | payload AA BB
            wire: bytes("80 60 00 01 | 00 00 00 0A | 12 34 56 78 | AA BB"),
            packet: RTPPacket(
                header: try! RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 10, ssrc: 0x1234_5678),
                payload: bytes("AA BB")
            )
        ),
        RTPPacketVector(
            name: "marker and two CSRCs",
            // v=2, p=0, x=0, cc=2 | m=1, pt=96 | seq=65535 | ts=65536 | ssrc | csrc 1 | csrc 2 | payload 01
            wire: bytes("82 E0 FF FF | 00 01 00 00 | DE AD BE EF | 00 00 00 01 | 00 00 00 02 | 01"),
            packet: RTPPacket(
                header: try! RTPHeader(
                    marker: true, payloadType: 96, sequenceNumber: 65535, timestamp: 65536, ssrc: 0xDEAD_BEEF,
                    csrcs: [1, 2]
                ),
                payload: bytes("01")
            )
        ),
        RTPPacketVector(
            name: "one-byte extension (CVO id 3: C=1 F=1 R=01)",
            // v=2, p=0, x=1, cc=0 | m=1, pt=96 | seq=5 | ts=0 | ssrc=1 | 0xBEDE len=1 word |
            // ID=3 L=0 (1 byte) 0x0D, 2 padding zeros | payload 65
            wire: bytes("90 E0 00 05 | 00 00 00 00 | 00 00 00 01 | BE DE 00 01 | 30 0D 00 00 | 65"),
            packet: RTPPacket(
                header: try! RTPHeader(
                    marker: true, payloadType: 96, sequenceNumber: 5, timestamp: 0, ssrc: 1, headerExtension: cvo
                ),
                payload: bytes("65")
            )
        ),
        RTPPacketVector(
            name: "two-byte extension",
            // v=2, p=0, x=1, cc=0 | m=0, pt=111 | seq=7 | ts=960 | ssrc=2 | 0x1000 len=1 word |
            // ID=5 len=2 AB CD | payload FC
            wire: bytes("90 6F 00 07 | 00 00 03 C0 | 00 00 00 02 | 10 00 00 01 | 05 02 AB CD | FC"),
            packet: RTPPacket(
                header: try! RTPHeader(
                    payloadType: 111, sequenceNumber: 7, timestamp: 960, ssrc: 2, headerExtension: twoByte
                ),
                payload: bytes("FC")
            )
        ),
        RTPPacketVector(
            name: "padding",
            // v=2, p=1, x=0, cc=0 | m=0, pt=96 | seq=7 | ts=1 | ssrc=3 | payload 01 02 | padding 00 00 03
            wire: bytes("A0 60 00 07 | 00 00 00 01 | 00 00 00 03 | 01 02 | 00 00 03"),
            packet: RTPPacket(
                header: try! RTPHeader(payloadType: 96, sequenceNumber: 7, timestamp: 1, ssrc: 3),
                payload: bytes("01 02"), paddingSize: 3
            )
        ),
    ]
}()

@Suite("RTP packet")
struct RTPPacketTests {
    @Test(arguments: rtpVectors)
    func decodes(vector: RTPPacketVector) throws {
        var wire = vector.wire
        let packet = try RTPPacket(from: &wire)
        #expect(packet == vector.packet)
        #expect(wire.readableBytes == 0)
    }

    @Test(arguments: rtpVectors)
    func encodesByteForByte(vector: RTPPacketVector) {
        let wire = encode(vector.packet.write)
        #expect(wire == vector.wire)
        #expect(vector.packet.encodedSize == vector.wire.readableBytes)
    }

    @Test(arguments: rtpVectors)
    func everyHeaderPrefixIsTruncated(vector: RTPPacketVector) {
        for prefix in prefixes(of: vector.wire) where prefix.readableBytes < vector.packet.header.encodedSize {
            var buffer = prefix
            #expect(throws: RTPError.self) { try RTPPacket(from: &buffer) }
            do {
                _ = try RTPPacket(from: &buffer)
            } catch {
                guard case .truncated = error else {
                    Issue.record("prefix \(prefix.readableBytes): \(error)")
                    return
                }
            }
            #expect(buffer.readableBytes == prefix.readableBytes, "a failed decode consumes nothing")
        }
    }

    @Test func payloadIsASliceOfTheDatagram() throws {
        var wire = rtpVectors[0].wire
        let packet = try RTPPacket(from: &wire)
        packet.payload.withUnsafeReadableBytes { payload in
            rtpVectors[0].wire.withUnsafeReadableBytes { datagram in
                #expect(payload.baseAddress == datagram.baseAddress.map { $0 + 12 })
            }
        }
    }

    @Test func writesAfterExistingBytes() {
        var buffer = bytes("FF")
        rtpVectors[0].packet.write(to: &buffer)
        #expect(buffer.readableBytes == 1 + rtpVectors[0].wire.readableBytes)
        #expect(buffer.getSlice(at: 1, length: rtpVectors[0].wire.readableBytes) == rtpVectors[0].wire)
    }

    static let malformed: [(String, ByteBuffer, RTPError)] = [
        // v=1
        ("version 1", bytes("40 60 00 01 00 00 00 0A 12 34 56 78"), .unsupportedVersion(1)),
        // v=2, p=1, padding count 0
        ("padding count zero", bytes("A0 60 00 01 00 00 00 0A 12 34 56 78 00"), .invalidPadding(count: 0, available: 1)),
        // v=2, p=1, padding count 5 with 1 byte after the header
        ("padding past header", bytes("A0 60 00 01 00 00 00 0A 12 34 56 78 05"), .invalidPadding(count: 5, available: 1)),
        // v=2, p=1, no byte at all after the header
        ("padding bit, no bytes", bytes("A0 60 00 01 00 00 00 0A 12 34 56 78"), .truncated(needed: 1, available: 0)),
        // cc=1 but no CSRC
        ("missing CSRC", bytes("81 60 00 01 00 00 00 0A 12 34 56 78"), .truncated(needed: 4, available: 0)),
        // x=1, 0xBEDE len=2 words but one present
        ("extension overrun", bytes("90 60 00 01 00 00 00 0A 12 34 56 78 BE DE 00 02 10 AA 00 00"),
         .truncated(needed: 8, available: 4)),
        // x=1, one-byte element ID=3 L=15 (16 bytes) in a 4-byte block
        ("element overrun", bytes("90 60 00 01 00 00 00 0A 12 34 56 78 BE DE 00 01 3F 00 00 00"),
         .truncated(needed: 16, available: 3)),
        // x=1, two-byte element ID=1 with its length byte cut off by the block end
        ("two-byte length missing", bytes("90 60 00 01 00 00 00 0A 12 34 56 78 10 00 00 01 00 00 00 01"),
         .truncated(needed: 1, available: 0)),
    ]

    @Test(arguments: malformed.indices)
    func rejectsMalformed(index: Int) {
        let (name, wire, expected) = Self.malformed[index]
        var buffer = wire
        #expect(throws: expected, "\(name)") { try RTPPacket(from: &buffer) }
    }

    @Test func headerRejectsFieldsTooWide() {
        #expect(throws: RTPError.valueOutOfRange(field: "payload type", value: 128)) {
            try RTPHeader(payloadType: 128, sequenceNumber: 0, timestamp: 0, ssrc: 0)
        }
        #expect(throws: RTPError.valueOutOfRange(field: "CSRC count", value: 16)) {
            try RTPHeader(payloadType: 96, sequenceNumber: 0, timestamp: 0, ssrc: 0, csrcs: Array(repeating: 1, count: 16))
        }
    }
}
