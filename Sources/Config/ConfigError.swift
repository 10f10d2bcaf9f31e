/// Everything that can be wrong with a livepush config file, each naming where: file, line and
/// the key path (`cameras[0].encoder.bitrate`), so the message alone tells the user what to fix.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The config file's path as the user gave it.
    public var file: String
    /// 1-based line of the offending node; nil when the problem is the whole file.
    public var line: Int?
    /// Dotted key path with indexes, e.g. `cameras[0].encoder.bitrate`; empty for the document.
    public var key: String
    /// What is wrong and what to write instead.
    public var message: String

    public init(file: String, line: Int?, key: String, message: String) {
        self.file = file
        self.line = line
        self.key = key
        self.message = message
    }

    public var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        return key.isEmpty ? "\(place): \(message)" : "\(place): \(key): \(message)"
    }
}
