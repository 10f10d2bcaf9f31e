/// Lengths of time as users write them on the command line and in configs: `30s`, `10m`, `1h`,
/// `1.5h`, or a bare number of seconds.
///
/// At most a year: every duration ends up as nanoseconds in a 64-bit clock value, and a longer one
/// (`1e12s`) would overflow there instead of meaning "never".
public enum DurationParser {
    /// A year in seconds: the longest duration accepted.
    public static let maximumSeconds = 365.0 * 24 * 3600

    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var text: String
        public init(text: String) { self.text = text }
        public var description: String { "invalid duration '\(text)': write it like 30s, 10m or 1h (at most a year)" }
    }

    public static func seconds(parsing text: String) throws(Failure) -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        var number = Substring(text)
        var scale = 1.0
        if let last = text.last, let unit = units[last] {
            number = number.dropLast()
            scale = unit
        }
        guard let value = Double(number), value > 0, value * scale <= maximumSeconds else { throw Failure(text: text) }
        return value * scale
    }
}
