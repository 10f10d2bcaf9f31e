import NIOCore

/// A fuzz target's invariant that an input broke: what was wrong, and where the check is.
///
/// The checks throw it rather than trap, so that one check serves both callers: the fuzz executable
/// (`FuzzSupport`) turns it into a trap, which libFuzzer records as a crash with its input, and the
/// corpus replay test (`Tests/FuzzCorpusTests`) records it as an issue naming the corpus file.
public struct FuzzInvariantBroken: Error, CustomStringConvertible {
    public let message: String
    public let file: StaticString
    public let line: UInt

    public init(message: String, file: StaticString, line: UInt) {
        self.message = message
        self.file = file
        self.line = line
    }

    public var description: String { "fuzz invariant broken: \(message) (\(file):\(line))" }
}

/// Round-trip and consistency checks inside a fuzz target.
///
/// A parser that throws on bad input is correct; one that accepts input and then re-encodes it into
/// something it reads differently is a logic bug no sanitizer sees.
public func fuzzRequire(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) throws(FuzzInvariantBroken) {
    if !condition() { throw FuzzInvariantBroken(message: message(), file: file, line: line) }
}

/// Encodes `value`, decodes the bytes again and requires the same value back.
public func fuzzRequireRoundTrip<Value: Equatable, Bytes>(
    _ value: Value, encode: (Value) throws(FuzzInvariantBroken) -> Bytes, decode: (Bytes) throws -> Value,
    file: StaticString = #fileID, line: UInt = #line
) throws(FuzzInvariantBroken) {
    let encoded = try encode(value)
    let again: Value
    do {
        again = try decode(encoded)
    } catch {
        throw FuzzInvariantBroken(message: "re-encoded \(value) does not parse: \(error)", file: file, line: line)
    }
    try fuzzRequire(again == value, "round trip changed \(value) into \(again)", file: file, line: line)
}

/// The round trip of a wire codec (`write(to:)`, `encodedSize`, `init(from:)` on a ByteBuffer):
/// writing `value` fills exactly `encodedSize` bytes, and those bytes decode to the same value.
public func fuzzRequireWireRoundTrip<Value: Equatable>(
    _ value: Value, encodedSize: Int, write: (Value, inout ByteBuffer) -> Void, decode: (inout ByteBuffer) throws -> Value,
    file: StaticString = #fileID, line: UInt = #line
) throws(FuzzInvariantBroken) {
    try fuzzRequireRoundTrip(value, encode: { value throws(FuzzInvariantBroken) in
        var out = ByteBuffer()
        write(value, &out)
        try fuzzRequire(out.readableBytes == encodedSize, "encodedSize \(encodedSize) ≠ \(out.readableBytes) written", file: file, line: line)
        return out
    }, decode: { bytes in
        var bytes = bytes
        return try decode(&bytes)
    }, file: file, line: line)
}
