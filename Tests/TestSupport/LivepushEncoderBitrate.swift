/// Reads the encoder bitrate line of `livepush stream`'s closing summary
/// ("  encoder bitrate: 2500 kbit/s at the end, lowest 686 kbit/s, 7 changes").
public enum LivepushEncoderBitrate {
    /// The lowest bitrate the encoder ran at, in kbit/s; nil when the line is missing (it never changed).
    public static func lowestKilobits(in output: String) -> Int? {
        guard let line = output.split(separator: "\n").last(where: { $0.contains("encoder bitrate:") }),
              let range = line.range(of: "lowest ") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }
}
