import NIOCore

/// One fuzz target's check: the function libFuzzer calls on every input of `Fuzz/<name>`, and the
/// corpus replay test on every file of `Fuzz/Corpus/<name>`. Inputs the parsers refuse are fine; a
/// broken invariant throws ``FuzzInvariantBroken``.
public struct FuzzTarget: Sendable {
    /// The fuzz executable's name: its folder in `Fuzz/` and its corpus in `Fuzz/Corpus/`.
    public let name: String
    public let check: @Sendable (_ input: [UInt8]) throws(FuzzInvariantBroken) -> Void

    public init(name: String, check: @escaping @Sendable (_ input: [UInt8]) throws(FuzzInvariantBroken) -> Void) {
        self.name = name
        self.check = check
    }
}

/// The input as the types the parsers take.
public enum FuzzInput {
    /// A fresh `ByteBuffer` of the input (the parsers may keep slices of it).
    public static func byteBuffer(_ bytes: [UInt8]) -> ByteBuffer { ByteBuffer(bytes: bytes) }

    /// The input as text, when it is valid UTF-8 (text parsers see only what a socket or file could
    /// give them after decoding; invalid UTF-8 is refused before they run).
    public static func string(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }
}
