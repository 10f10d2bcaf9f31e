/// A line kept as it came (`b=`, `i=`, `k=`, `r=`, `z=`, ...): the offer/answer code has no use
/// for it, but serializing a parsed description must not lose it.
public struct SDPLine: Sendable, Hashable {
    public var type: Character
    public var value: String

    public init(type: Character, value: String) {
        self.type = type
        self.value = value
    }
}
