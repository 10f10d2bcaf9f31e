import Foundation
import NIOCore
import TestSupport

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

