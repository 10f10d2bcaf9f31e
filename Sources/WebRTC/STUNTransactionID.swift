/// The 96-bit transaction id (RFC 8489 §5) that ties a response to its request. Requests use a
/// fresh random one, so an off-path attacker cannot forge a response.
public struct STUNTransactionID: Sendable, Hashable, CustomStringConvertible {
    public static let byteCount = 12

    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = bytes
    }

    public static func random(using generator: inout some RandomNumberGenerator) -> STUNTransactionID {
        STUNTransactionID(uncheckedBytes: (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    private init(uncheckedBytes: [UInt8]) {
        bytes = uncheckedBytes
    }

    public var description: String {
        bytes.map { String($0, radix: 16) }.joined()
    }
}
