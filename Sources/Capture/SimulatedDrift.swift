/// The `?drift_ppm=N` option of the simulated sources (`testpattern?drift_ppm=1000`,
/// `tone?drift_ppm=-1000`): a clock off by N parts per million, to test audio/video sync against
/// (docs/audio-video-sync.md).
enum SimulatedDrift {
    static let option = "?drift_ppm="
    /// The largest drift a simulator takes: 10 %.
    static let limitPPM = 100_000.0

    /// `text` without the option, and the drift it names (nil when it names none).
    static func split(_ text: String) throws(CaptureError) -> (name: String, driftPPM: Double?) {
        guard let range = text.range(of: option) else { return (text, nil) }
        let value = String(text[range.upperBound...])
        guard let ppm = Double(value), ppm.isFinite, abs(ppm) < limitPPM else {
            throw .invalidSetting(name: "drift_ppm", value: value, hint: "a number of parts per million within ±100000, e.g. \(option.dropFirst())-1000")
        }
        return (String(text[..<range.lowerBound]), ppm)
    }
}
