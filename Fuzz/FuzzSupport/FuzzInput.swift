import NIOCore

/// The bytes libFuzzer hands to `LLVMFuzzerTestOneInput`, as the types the parsers take.
///
/// libFuzzer may pass a null pointer with a size of 0, so the pointer is optional here and every
/// target goes through these instead of building its own buffer.
public enum FuzzInput {
    /// The input as a fresh `ByteBuffer` (a copy: the parsers may keep slices of it).
    public static func byteBuffer(_ data: UnsafePointer<UInt8>?, _ size: Int) -> ByteBuffer {
        ByteBuffer(bytes: bytes(data, size))
    }

    /// The input as an array.
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// The input as text, when it is valid UTF-8 (text parsers see only what a socket or file could
    /// give them after decoding; invalid UTF-8 is refused before they run).
    public static func string(_ data: UnsafePointer<UInt8>?, _ size: Int) -> String? {
        String(validating: bytes(data, size), as: UTF8.self)
    }
}
