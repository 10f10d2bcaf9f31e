import NIOCore

/// Round-trip and consistency checks inside a fuzz target.
///
/// A parser that throws on bad input is correct; one that accepts input and then re-encodes it into
/// something it reads differently is a logic bug no sanitizer sees. A failed check traps, which
/// libFuzzer records as a crash with the input that caused it.
public func fuzzRequire(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition() { fatalError("fuzz invariant broken: \(message())", file: file, line: line) }
}

/// Encodes `value`, decodes the bytes again and requires the same value back.
public func fuzzRequireRoundTrip<Value: Equatable, Bytes>(
    _ value: Value, encode: (Value) -> Bytes, decode: (Bytes) throws -> Value,
    file: StaticString = #fileID, line: UInt = #line
) {
    let encoded = encode(value)
    do {
        let again = try decode(encoded)
        fuzzRequire(again == value, "round trip changed \(value) into \(again)", file: file, line: line)
    } catch {
        fuzzRequire(false, "re-encoded \(value) does not parse: \(error)", file: file, line: line)
    }
}

/// The round trip of a wire codec (`write(to:)`, `encodedSize`, `init(from:)` on a ByteBuffer):
/// writing `value` fills exactly `encodedSize` bytes, and those bytes decode to the same value.
public func fuzzRequireWireRoundTrip<Value: Equatable>(
    _ value: Value, encodedSize: Int, write: (Value, inout ByteBuffer) -> Void, decode: (inout ByteBuffer) throws -> Value,
    file: StaticString = #fileID, line: UInt = #line
) {
    fuzzRequireRoundTrip(value, encode: { value in
        var out = ByteBuffer()
        write(value, &out)
        fuzzRequire(out.readableBytes == encodedSize, "encodedSize \(encodedSize) ≠ \(out.readableBytes) written", file: file, line: line)
        return out
    }, decode: { bytes in
        var bytes = bytes
        return try decode(&bytes)
    }, file: file, line: line)
}
