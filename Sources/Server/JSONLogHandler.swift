import Foundation
import Logging

/// swift-log handler for `--log-format json`: one JSON object per line on stderr with time,
/// level, label, message and the metadata (camera, output, …) as top-level keys, for journald
/// and log shippers.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String

    public init(label: String) { self.label = label }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var object: [String: String] = [
            "time": ISO8601DateFormatter().string(from: Date()),
            "level": "\(event.level)",
            "label": label,
            "message": "\(event.message)",
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) where object[key] == nil {
            object[key] = "\(value)"
        }
        guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        data.append(UInt8(ascii: "\n"))
        FileHandle.standardError.write(data)
    }
}
