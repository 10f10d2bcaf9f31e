/// Parses lengths users write for `--segment`: `30s`, `10m`, `1h` (a bare number is seconds).
public enum SegmentDuration {
    public static func seconds(parsing text: String) throws(RecordingError) -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        var number = Substring(text)
        var scale = 1.0
        if let last = text.last, let unit = units[last] {
            number = number.dropLast()
            scale = unit
        }
        guard let value = Double(number), value > 0, value.isFinite else { throw .invalidSegmentDuration(text) }
        return value * scale
    }
}
