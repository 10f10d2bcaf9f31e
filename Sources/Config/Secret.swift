import Foundation

/// A value that must not show up in logs or API answers: a stream key, an API token, an SRTP key.
///
/// In the config it is written inline, as `env:NAME` (read from the environment) or as
/// `file:PATH` (the file's contents, trailing newline trimmed; systemd credentials and Docker
/// secrets are files). ``description`` never prints the value.
public struct Secret: Sendable, Equatable, CustomStringConvertible {
    /// Where it came from, as written: `env:NAME`, `file:PATH`, or `inline`.
    public let origin: String
    /// The secret itself, for the code that needs it (the RTMP connect, the auth check).
    public let value: String

    public init(origin: String, value: String) {
        self.origin = origin
        self.value = value
    }

    public var description: String { "***(\(origin))" }

    /// Resolves a config value; `environment` and `readFile` are parameters so tests fix them.
    static func resolve(_ text: String, at node: ConfigNode, environment: [String: String],
                        readFile: (String) -> String?) throws(ConfigError) -> Secret {
        if text.hasPrefix("env:") {
            let name = String(text.dropFirst(4))
            guard !name.isEmpty else { throw node.error("write env:NAME with the variable's name") }
            guard let value = environment[name], !value.isEmpty else {
                throw node.error("environment variable \(name) is not set (or empty); export it or use file:PATH")
            }
            return Secret(origin: text, value: value)
        }
        if text.hasPrefix("file:") {
            let path = String(text.dropFirst(5))
            guard let contents = readFile(path) else { throw node.error("cannot read secret file \(path)") }
            let value = contents.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !value.isEmpty else { throw node.error("secret file \(path) is empty") }
            return Secret(origin: text, value: value)
        }
        guard !text.isEmpty else { throw node.error("the secret is empty") }
        return Secret(origin: "inline", value: text)
    }
}
