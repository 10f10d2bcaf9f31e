/// Lengths of time as users write them on the command line and in configs: `30s`, `10m`, `1h`,
/// `1.5h`, or a bare number of seconds.
public enum DurationParser {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var text: String
        public init(text: String) { self.text = text }
        public var description: String { "invalid duration '\(text)': write it like 30s, 10m or 1h" }
    }

    public static func seconds(parsing text: String) throws(Failure) -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        var number = Substring(text)
        var scale = 1.0
        if let last = text.last, let unit = units[last] {
            number = number.dropLast()
            scale = unit
        }
        guard let value = Double(number), value > 0, value.isFinite else { throw Failure(text: text) }
        return value * scale
    }
}
