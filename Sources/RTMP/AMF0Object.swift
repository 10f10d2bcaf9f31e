/// The ordered key/value pairs of an AMF0 object or ECMA array (AMF0 spec §2.5, §2.10).
///
/// Order is kept because it is visible on the wire and some servers read `connect` properties positionally;
/// a dictionary would reorder them and break byte-exact tests.
public struct AMF0Object: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// One named value. Keys should not be empty: on the wire an empty key ends the object.
    public struct Property: Sendable, Hashable {
        public var key: String
        public var value: AMF0Value

        public init(_ key: String, _ value: AMF0Value) {
            self.key = key
            self.value = value
        }
    }

    public var properties: [Property]

    public init(_ properties: [Property] = []) {
        self.properties = properties
    }

    public init(dictionaryLiteral elements: (String, AMF0Value)...) {
        self.properties = elements.map { Property($0.0, $0.1) }
    }

    /// The value of the first property named `key`.
    public subscript(key: String) -> AMF0Value? {
        properties.first { $0.key == key }?.value
    }

    /// Appends a property, keeping earlier ones first.
    public mutating func append(_ key: String, _ value: AMF0Value) {
        properties.append(Property(key, value))
    }
}
