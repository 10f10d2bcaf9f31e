import Foundation
import NIOCore

/// Builds a buffer from hex like "00 01 00 58"; spaces and `|` are ignored so vectors can show fields.
func bytes(_ hex: String) -> ByteBuffer {
    let digits = Array(hex.filter(\.isHexDigit))
    var buffer = ByteBuffer()
    for index in stride(from: 0, to: digits.count - 1, by: 2) {
        buffer.writeInteger(UInt8(String(digits[index...index + 1]), radix: 16) ?? 0)
    }
    return buffer
}

/// A committed fixture's text (see Fixtures/README.md for how each was produced).
func fixture(_ name: String) throws -> String {
    let directory = #filePath.split(separator: "/").dropLast().joined(separator: "/")
    return try String(contentsOfFile: "/\(directory)/Fixtures/\(name)", encoding: .utf8)
}

/// A deterministic generator (SplitMix64) so random-looking tests and fuzzing are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
