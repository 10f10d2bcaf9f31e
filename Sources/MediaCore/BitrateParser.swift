/// Bitrates as streamers write them: `2500k`, `2.5M`, `800000` (bits per second).
public enum BitrateParser {
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var text: String
        public init(text: String) { self.text = text }
        public var description: String { "invalid bitrate '\(text)': write bits per second with a unit, e.g. 2500k or 2.5M" }
    }

    public static func bitsPerSecond(parsing text: String) throws(Failure) -> Int {
        let scales: [Character: Double] = ["k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6]
        var number = Substring(text)
        var scale = 1.0
        if let last = text.last, let unit = scales[last] {
            number = number.dropLast()
            scale = unit
        }
        guard let value = Double(number), value.isFinite, value * scale >= 1, value * scale <= 1e9 else { throw Failure(text: text) }
        return Int((value * scale).rounded())
    }
}
