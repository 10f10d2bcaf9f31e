import NIOCore
import Testing
@testable import RTP

@Suite("RTP header extensions (RFC 8285) and CVO")
struct RTPHeaderExtensionTests {
    static let orientations: [(VideoOrientation, UInt8)] = [
        // 0000 C=0 F=0 R=00
        (VideoOrientation(), 0x00),
        // 0000 C=0 F=0 R=01: rotate 90° clockwise to display
        (VideoOrientation(rotation: .degrees90), 0x01),
        // 0000 C=1 F=0 R=10
        (VideoOrientation(camera: .back, rotation: .degrees180), 0x0A),
        // 0000 C=1 F=1 R=11
        (VideoOrientation(camera: .back, horizontalFlip: true, rotation: .degrees270), 0x0F),
        // 0000 C=0 F=1 R=00
        (VideoOrientation(horizontalFlip: true), 0x04),
    ]

    @Test(arguments: orientations.indices)
    func videoOrientationByte(index: Int) throws {
        let (orientation, byte) = Self.orientations[index]
        #expect(encode(orientation.write) == bytes([byte]))
        var wire = bytes([byte])
        #expect(try VideoOrientation(from: &wire) == orientation)
    }

    @Test func videoOrientationIgnoresGranularityBits() {
        // 1010 (granularity, two-byte form only) C=0 F=1 R=01
        #expect(VideoOrientation(byte: 0xA5) == VideoOrientation(horizontalFlip: true, rotation: .degrees90))
    }

    @Test func videoOrientationExtensionOnTheWire() throws {
        let ext = try VideoOrientation(camera: .back, rotation: .degrees90).headerExtension(id: 7)
        // 0xBEDE, 1 word | ID=7 L=0 | C=1 F=0 R=01 | 2 padding zeros
        #expect(encode(ext.write) == bytes("BE DE 00 01 | 70 09 00 00"))
        #expect(ext.form == .oneByte)
        #expect(ext.element(id: 7) == bytes("09"))
        #expect(ext.element(id: 8) == nil)
    }

    @Test func oneByteElementsWithPaddingAndStop() throws {
        // ID=1 L=1 (2 bytes) AA BB | padding 00 | ID=2 L=0 CC | ID=15 stops: the rest is ignored
        let ext = try RTPHeaderExtension(profile: 0xBEDE, data: bytes("11 AA BB 00 | 20 CC F0 FF"))
        #expect(ext.elements == [
            RTPHeaderExtensionElement(id: 1, data: bytes("AA BB")),
            RTPHeaderExtensionElement(id: 2, data: bytes("CC")),
        ])
    }

    @Test func twoByteElementsBuildAndParse() throws {
        let ext = try RTPHeaderExtension(
            twoByteElements: [
                RTPHeaderExtensionElement(id: 200, data: bytes("01 02 03")),
                RTPHeaderExtensionElement(id: 3, data: ByteBuffer()),
            ],
            appBits: 2
        )
        // ID=200 len=3 01 02 03 | ID=3 len=0 | 1 padding zero
        #expect(ext.profile == 0x1002)
        #expect(ext.form == .twoByte(appBits: 2))
        #expect(ext.data == bytes("C8 03 01 02 03 | 03 00 00"))
        #expect(ext.elements.map(\.id) == [200, 3])
    }

    @Test func otherProfilesAreOpaque() throws {
        let ext = try RTPHeaderExtension(profile: 0xABAC, data: bytes("FF FF FF FF"))
        #expect(ext.form == .other)
        #expect(ext.elements.isEmpty)
    }

    static let invalidBuilds: [(String, @Sendable () throws(RTPError) -> RTPHeaderExtension, RTPError)] = [
        ("one-byte ID 0", { () throws(RTPError) in
            try RTPHeaderExtension(oneByteElements: [RTPHeaderExtensionElement(id: 0, data: bytes("01"))])
        }, .valueOutOfRange(field: "one-byte extension ID", value: 0)),
        ("one-byte ID 15", { () throws(RTPError) in
            try RTPHeaderExtension(oneByteElements: [RTPHeaderExtensionElement(id: 15, data: bytes("01"))])
        }, .valueOutOfRange(field: "one-byte extension ID", value: 15)),
        ("one-byte empty data", { () throws(RTPError) in
            try RTPHeaderExtension(oneByteElements: [RTPHeaderExtensionElement(id: 1, data: ByteBuffer())])
        }, .invalidLength(field: "one-byte extension element", length: 0)),
        ("one-byte 17 bytes", { () throws(RTPError) in
            try RTPHeaderExtension(oneByteElements: [
                RTPHeaderExtensionElement(id: 1, data: ByteBuffer(repeating: 1, count: 17)),
            ])
        }, .invalidLength(field: "one-byte extension element", length: 17)),
        ("two-byte ID 0", { () throws(RTPError) in
            try RTPHeaderExtension(twoByteElements: [RTPHeaderExtensionElement(id: 0, data: bytes("01"))])
        }, .valueOutOfRange(field: "two-byte extension ID", value: 0)),
        ("two-byte appbits 16", { () throws(RTPError) in
            try RTPHeaderExtension(twoByteElements: [], appBits: 16)
        }, .valueOutOfRange(field: "appbits", value: 16)),
        ("raw data not word-aligned", { () throws(RTPError) in
            try RTPHeaderExtension(profile: 0xABAC, data: bytes("01 02 03"))
        }, .invalidLength(field: "header extension", length: 3)),
    ]

    @Test(arguments: invalidBuilds.indices)
    func rejectsInvalidBuilds(index: Int) {
        let (name, build, expected) = Self.invalidBuilds[index]
        #expect(throws: expected, "\(name)") { try build() }
    }
}
