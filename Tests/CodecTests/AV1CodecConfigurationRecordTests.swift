import Foundation
import Testing
@testable import Codec

/// AV1 OBUs, the sequence header and the av1C record, checked against the records FFmpeg's MP4
/// muxer wrote for the same sequence headers, and against truncated and malformed input.
@Suite struct AV1CodecConfigurationRecordTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        /// The sequence header OBU (header 0x0a: type 1, size field; then leb128 size and payload).
        var obu: String
        /// The av1C FFmpeg 5.1's MP4 muxer wrote for it (its first four bytes; configOBUs is the OBU).
        var recordHeader: String
        var width: Int
        var height: Int
        var testDescription: String { name }
    }

    /// Each from `ffmpeg -f lavfi -i testsrc2=…` encoded and muxed to MP4, the av1C box read back.
    static let cases: [Case] = [
        // 81 | profile 0, level idx 1 | tier 0, 8-bit, 4:2:0 (x=1, y=1), CSP unknown | no delay
        Case(name: "SVT-AV1 8-bit 4:2:0", obu: "0a0b0000000cc4ff6700be0010", recordHeader: "81010c00", width: 640, height: 360),
        // high_bitdepth = 1 (0x40)
        Case(name: "SVT-AV1 10-bit 4:2:0", obu: "0a0b0000000cc4ff6700be1010", recordHeader: "81014c00", width: 640, height: 360),
        // level idx 13 > 7: seq_tier is coded (0 here)
        Case(name: "SVT-AV1 4096x2176, level 5.1", obu: "0a0c0000006aefffe1fc02f80040", recordHeader: "810d0c00", width: 4096, height: 2176),
        // profile 1 (0x20): 4:4:4, no subsampling bits, no mono_chrome flag
        Case(name: "libaom 4:4:4", obu: "0a0a200000043cffbcdaf902", recordHeader: "81200000", width: 320, height: 240),
        // profile 2 (0x40) at 8 bits: 4:2:2 implied (x=1, y=0)
        Case(name: "libaom 4:2:2", obu: "0a0a400000043cffbcdaf901", recordHeader: "81400800", width: 320, height: 240),
        // monochrome (0x10), subsampling implied 1, 1
        Case(name: "libaom monochrome", obu: "0a0a000000043cffbcdaf92a", recordHeader: "81001c00", width: 320, height: 240),
        // BT.709 / sRGB / identity matrix: the 4:4:4 special case without color_range
        Case(name: "libaom RGB (sRGB, identity)", obu: "0a0d200000043cffbcdaf92021a004", recordHeader: "81200000", width: 320, height: 240),
        // timing_info_present with equal_picture_interval (a uvlc), decoder model absent
        Case(name: "libaom with timing info", obu: "0a1404000000040000007b400000bc3cffbcdaf90040", recordHeader: "81000c00",
             width: 320, height: 240),
    ]

    static func bytes(_ hex: String) -> [UInt8] {
        stride(from: 0, to: hex.count, by: 2).map { offset in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16) ?? 0
        }
    }

    @Test(arguments: cases) func matchesFFmpegsRecord(_ example: Case) throws {
        let obu = Self.bytes(example.obu)
        let record = try AV1CodecConfigurationRecord(sequenceHeaderOBU: obu)
        #expect(record.bytes == Self.bytes(example.recordHeader) + obu)
        #expect(record.sequenceHeader.maxFrameWidth == example.width && record.sequenceHeader.maxFrameHeight == example.height)
    }

    /// An OBU without a size field (allowed as the last of a temporal unit) goes into configOBUs with one.
    @Test func addsTheSizeFieldConfigOBUsNeed() throws {
        let withSize = Self.bytes(Self.cases[0].obu)
        let withoutSize = [withSize[0] & ~AV1OBU.hasSizeFieldFlag] + withSize.dropFirst(2)
        let record = try AV1CodecConfigurationRecord(sequenceHeaderOBU: withoutSize)
        #expect(record.sequenceHeaderOBU == withSize)
    }

    /// Every prefix of a header either throws a typed error or, once only trailing bits are missing,
    /// parses to the same fields; the OBU cut short anywhere is refused.
    @Test(arguments: cases) func truncationAtEveryOffsetThrows(_ example: Case) throws {
        let obu = Self.bytes(example.obu)
        let payload = Array(obu.dropFirst(2))
        let full = try AV1SequenceHeader(payload: payload)
        var shortestParsed = payload.count
        for length in 0..<payload.count {
            do {
                let parsed = try AV1SequenceHeader(payload: Array(payload.prefix(length)))
                #expect(parsed == full, "\(length) bytes")
                shortestParsed = min(shortestParsed, length)
            } catch {
                #expect(error == .truncatedBitstream(structure: "AV1 sequence header"), "\(length) bytes: \(error)")
            }
        }
        // film_grain_params_present and the trailing bits are all the parser may leave unread.
        #expect(shortestParsed >= payload.count - 2)
        for length in 0..<obu.count {
            #expect(throws: CodecError.self, "OBU cut at \(length)") { try AV1CodecConfigurationRecord(sequenceHeaderOBU: Array(obu.prefix(length))) }
        }
    }

    @Test(arguments: [
        ("", "needs exactly one OBU, got 0"),
        ("1200", "OBU type 2 is not a sequence header (1)"),  // a temporal delimiter
        ("0a0b0000000cc4ff6700be00101200", "needs exactly one OBU, got 2"),
        ("8a0b0000000cc4ff6700be0010", "forbidden bit set at offset 0"),
        ("0a8080808080808080", "leb128 longer than 8 bytes"),
        ("0affffffff7f", "34359738367 does not fit 32 bits"),
        ("0a01e0", "seq_profile 7 (0, 1 or 2)"),
    ])
    func refusesMalformedInput(hex: String, detail: String) {
        #expect(throws: CodecError.self) { try AV1CodecConfigurationRecord(sequenceHeaderOBU: Self.bytes(hex)) }
        do {
            _ = try AV1CodecConfigurationRecord(sequenceHeaderOBU: Self.bytes(hex))
        } catch {
            guard case .malformedBitstream(_, let found) = error else {
                Issue.record("\(hex): \(error)")
                return
            }
            #expect(found == detail)
        }
    }

    /// The sequence header is found among a temporal unit's OBUs; a unit without one has none.
    @Test func parameterSetsFromATemporalUnit() throws {
        let header = Self.bytes(Self.cases[0].obu)
        let unit = [0x12, 0x00] + header + [0x32, 0x03, 0xAA, 0xBB, 0xCC]  // TD, sequence header, frame (type 6)
        let sets = try ParameterSets(av1TemporalUnit: unit)
        #expect(sets.isComplete && sets.av1SequenceHeader == header)
        #expect(try sets.decoderConfigurationRecord() == Self.bytes(Self.cases[0].recordHeader) + header)
        let interFrame = try ParameterSets(av1TemporalUnit: [0x12, 0x00, 0x32, 0x01, 0xAA])
        #expect(!interFrame.isComplete)
        #expect(try interFrame.decoderConfigurationRecord() == nil)
        #expect(throws: CodecError.truncatedBitstream(structure: "AV1 OBU payload")) {
            try ParameterSets(av1TemporalUnit: [0x12, 0x00, 0x32, 0x05, 0xAA])
        }
    }

    /// Our SVT-AV1 encode: the encoder keeps the sequence header, and our av1C equals the one FFmpeg's
    /// MP4 muxer builds from the same stream.
    @Test func svtAV1StreamMatchesFFmpegMP4Muxer() throws {
        let settings = VideoEncoderSettings(encoderName: "libsvtav1", width: 320, height: 240, bitrateBitsPerSecond: 300_000,
                                            preset: "12", tune: nil)
        let frames = try ExternalTools.encode(settings, count: 3)
        let raw = ExternalTools.temporaryPath("av1c.obu"), mp4 = ExternalTools.temporaryPath("av1c.mp4")
        defer { for path in [raw, mp4] { try? FileManager.default.removeItem(atPath: path) } }
        let first = try #require(frames.first)
        #expect(first.isKeyFrame && first.parameterSets.isComplete)
        try ExternalTools.writeElementaryStream(frames, to: raw)
        try ExternalTools.run("ffmpeg", ["-v", "error", "-y", "-f", "obu", "-i", raw, "-c", "copy", mp4])
        let reference = try ExternalTools.mp4BoxBody("av1C", in: mp4)
        #expect(try first.parameterSets.decoderConfigurationRecord() == reference)
        let record = try AV1CodecConfigurationRecord(sequenceHeaderOBU: first.parameterSets.av1SequenceHeader)
        #expect(record.sequenceHeader.maxFrameWidth == 320 && record.sequenceHeader.maxFrameHeight == 240)
    }
}
