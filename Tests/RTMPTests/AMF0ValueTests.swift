import NIOCore
import Testing

@testable import RTMP

@Suite("AMF0Value")
struct AMF0ValueTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var value: AMF0Value
        var bytes: [UInt8]
        var testDescription: String { name }
    }

    static let vectors: [Vector] = [
        // marker 0x00, IEEE 754 1.0 = 0x3FF0000000000000
        Vector(name: "number 1.0", value: .number(1), bytes: [0x00, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0]),
        // marker 0x00, -0.5 = 0xBFE0000000000000
        Vector(name: "number -0.5", value: .number(-0.5), bytes: [0x00, 0xBF, 0xE0, 0, 0, 0, 0, 0, 0]),
        // marker 0x01, 1 = true
        Vector(name: "true", value: .boolean(true), bytes: [0x01, 0x01]),
        Vector(name: "false", value: .boolean(false), bytes: [0x01, 0x00]),
        // marker 0x02, len=7, "connect"
        Vector(name: "string", value: .string("connect"), bytes: [0x02, 0x00, 0x07] + Array("connect".utf8)),
        // marker 0x02, len=0
        Vector(name: "empty string", value: .string(""), bytes: [0x02, 0x00, 0x00]),
        // marker 0x02, len=2, UTF-8 of "é"
        Vector(name: "UTF-8 string", value: .string("é"), bytes: [0x02, 0x00, 0x02, 0xC3, 0xA9]),
        // marker 0x0C, len=3 (32 bits), "abc"
        Vector(name: "long string", value: .longString("abc"), bytes: [0x0C, 0, 0, 0, 3, 0x61, 0x62, 0x63]),
        Vector(name: "null", value: .null, bytes: [0x05]),
        Vector(name: "undefined", value: .undefined, bytes: [0x06]),
        // marker 0x03, key "a" → true, key "b" → null, end: 00 00 09
        Vector(
            name: "object keeps order", value: .object(["a": .boolean(true), "b": .null]),
            bytes: [0x03, 0x00, 0x01, 0x61, 0x01, 0x01, 0x00, 0x01, 0x62, 0x05, 0x00, 0x00, 0x09]),
        // marker 0x03, end right away
        Vector(name: "empty object", value: .object([:]), bytes: [0x03, 0x00, 0x00, 0x09]),
        // marker 0x08, count=1, key "x" → number 0, end
        Vector(
            name: "ECMA array", value: .ecmaArray(["x": .number(0)]),
            bytes: [0x08, 0, 0, 0, 1, 0x00, 0x01, 0x78, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x00, 0x09]),
        // marker 0x0A, count=2, string "avc1", null
        Vector(
            name: "strict array", value: .strictArray([.string("avc1"), .null]),
            bytes: [0x0A, 0, 0, 0, 2, 0x02, 0x00, 0x04, 0x61, 0x76, 0x63, 0x31, 0x05]),
        // marker 0x0B, 1000.0 ms, time zone 0
        Vector(
            name: "date", value: .date(millisecondsSince1970: 1000, timeZone: 0),
            bytes: [0x0B, 0x40, 0x8F, 0x40, 0, 0, 0, 0, 0, 0x00, 0x00]),
        // nested: object { o: object { n: true } }
        Vector(
            name: "nested object", value: .object(["o": .object(["n": .boolean(true)])]),
            bytes: [0x03, 0x00, 0x01, 0x6F, 0x03, 0x00, 0x01, 0x6E, 0x01, 0x01, 0x00, 0x00, 0x09, 0x00, 0x00, 0x09]),
    ]

    @Test(arguments: vectors)
    func encodes(_ vector: Vector) {
        var buffer = ByteBuffer()
        vector.value.write(to: &buffer)
        #expect(buffer.bytes == vector.bytes)
        #expect(vector.value.encodedSize == vector.bytes.count)
    }

    @Test(arguments: vectors)
    func decodes(_ vector: Vector) throws {
        var buffer = ByteBuffer(vector.bytes)
        #expect(try AMF0Value(from: &buffer) == vector.value)
        #expect(buffer.readableBytes == 0)
    }

    @Test(arguments: vectors)
    func truncationAtEveryOffsetThrowsAndMovesNothing(_ vector: Vector) {
        for length in 0..<vector.bytes.count {
            var buffer = ByteBuffer(Array(vector.bytes.prefix(length)))
            let error = rtmpError { _ = try AMF0Value(from: &buffer) }
            guard case .truncated = error else {
                Issue.record("\(vector.name) cut to \(length) bytes: \(String(describing: error))")
                continue
            }
            #expect(buffer.readableBytes == length)
        }
    }

    @Test(arguments: [
        // marker → expected error
        (UInt8(0x04), RTMPError.amf0UnsupportedMarker(0x04)),  // movieclip
        (0x07, .amf0UnsupportedMarker(0x07)),  // reference
        (0x0D, .amf0UnsupportedMarker(0x0D)),  // unsupported
        (0x10, .amf0UnsupportedMarker(0x10)),  // typed object
        (0x11, .amf0UnsupportedMarker(0x11)),  // AMF3 switch
        (0x12, .amf0UnknownMarker(0x12)),
        (0xFF, .amf0UnknownMarker(0xFF)),
        (0x09, .amf0UnexpectedObjectEnd),
    ])
    func rejectsMarkers(marker: UInt8, expected: RTMPError) {
        var buffer = ByteBuffer([marker, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(rtmpError { _ = try AMF0Value(from: &buffer) } == expected)
    }

    @Test func emptyKeyWithoutObjectEndIsRejected() {
        // object, key length 0, then a number marker instead of 0x09
        var buffer = ByteBuffer([0x03, 0x00, 0x00, 0x00])
        #expect(rtmpError { _ = try AMF0Value(from: &buffer) } == .amf0UnknownMarker(0x00))
    }

    @Test func invalidUTF8IsRejected() {
        // string, len=1, 0xFF is never valid UTF-8
        var buffer = ByteBuffer([0x02, 0x00, 0x01, 0xFF])
        #expect(rtmpError { _ = try AMF0Value(from: &buffer) } == .amf0InvalidUTF8)
    }

    @Test func nestingLimit() throws {
        // strict arrays of one element nested `depth` times around null
        func nested(_ depth: Int) -> [UInt8] {
            Array(repeating: [0x0A, 0, 0, 0, 1], count: depth).flatMap { $0 } + [0x05]
        }
        var ok = ByteBuffer(nested(AMF0Value.maximumNestingDepth - 1))
        #expect(throws: Never.self) { try AMF0Value(from: &ok) }
        var tooDeep = ByteBuffer(nested(AMF0Value.maximumNestingDepth))
        #expect(rtmpError { _ = try AMF0Value(from: &tooDeep) } == .amf0NestingTooDeep(limit: AMF0Value.maximumNestingDepth))
        // 100k levels must fail fast, not overflow the stack
        var hostile = ByteBuffer(Array(repeating: [0x03, 0x00, 0x01, 0x61], count: 100_000).flatMap { $0 })
        #expect(rtmpError { _ = try AMF0Value(from: &hostile) } == .amf0NestingTooDeep(limit: AMF0Value.maximumNestingDepth))
    }

    @Test func hugeStrictArrayCountIsTruncationNotAllocation() {
        // strict array claiming 0xFFFFFFFF elements, followed by one null
        var buffer = ByteBuffer([0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x05])
        #expect(rtmpError { _ = try AMF0Value(from: &buffer) } == .truncated(what: "AMF0 strict array elements", needed: 0xFFFF_FFFF, available: 1))
    }

    @Test func ecmaArrayCountIsAdvisory() throws {
        // count says 5, one property follows: servers write wrong counts, the end marker decides
        var buffer = ByteBuffer([0x08, 0, 0, 0, 5, 0x00, 0x01, 0x61, 0x05, 0x00, 0x00, 0x09])
        #expect(try AMF0Value(from: &buffer) == .ecmaArray(["a": .null]))
    }

    @Test func stringOverShortLimitIsWrittenAsLongString() throws {
        let text = String(repeating: "x", count: 70_000)
        var buffer = ByteBuffer()
        AMF0Value.string(text).write(to: &buffer)
        #expect(buffer.readableBytes == AMF0Value.string(text).encodedSize)
        #expect(buffer.bytes.prefix(5) == [0x0C, 0x00, 0x01, 0x11, 0x70])  // long string, 70000 = 0x00011170
        #expect(try AMF0Value(from: &buffer) == .longString(text))
    }

    @Test func decodeAllReadsToTheEnd() throws {
        var buffer = ByteBuffer(amfString("a") + amfNumber(2) + [0x05])
        #expect(try AMF0Value.decodeAll(from: &buffer) == [.string("a"), .number(2), .null])
    }

    @Test func accessors() {
        let object: AMF0Object = ["k": .string("v")]
        #expect(AMF0Value.longString("s").stringValue == "s")
        #expect(AMF0Value.number(3).numberValue == 3)
        #expect(AMF0Value.ecmaArray(object).objectValue?["k"] == .string("v"))
        #expect(AMF0Value.null.objectValue == nil)
    }
}
