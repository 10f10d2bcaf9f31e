import Yams

/// A YAML node with the place it came from: the file, its line (from Yams' `Mark`) and the key
/// path that led to it. Every accessor throws a ``ConfigError`` naming all three, which is how
/// config errors read "livepush.yaml:7: cameras[0].encoder.bitrate: …".
struct ConfigNode {
    let node: Node
    let file: String
    /// Dotted key path with indexes (`cameras[0].outputs[1].rtmp.url`).
    let path: String

    var line: Int? { node.mark?.line }

    func error(_ message: String) -> ConfigError {
        ConfigError(file: file, line: line, key: path, message: message)
    }

    func child(_ node: Node, key: String) -> ConfigNode {
        ConfigNode(node: node, file: file, path: path.isEmpty ? key : "\(path).\(key)")
    }

    /// A mapping whose keys must all be in `allowed`; duplicates and unknown keys are errors.
    func mapping(allowed: [String]) throws(ConfigError) -> ConfigMapping {
        guard case let .mapping(mapping) = node else {
            throw error("expected a mapping with keys \(allowed.joined(separator: ", ")), found \(kindName)")
        }
        var entries: [String: ConfigNode] = [:]
        for (keyNode, value) in mapping {
            guard case let .scalar(scalar) = keyNode else { throw error("keys must be plain words") }
            let key = scalar.string
            let entry = child(value, key: key)
            guard allowed.contains(key) else {
                let keyError = ConfigError(file: file, line: keyNode.mark?.line, key: entry.path, message: "unknown key")
                throw ConfigError(file: keyError.file, line: keyError.line, key: keyError.key,
                                  message: "unknown key '\(key)'; \(Self.suggestion(for: key, among: allowed))")
            }
            guard entries[key] == nil else { throw entry.error("'\(key)' is given twice") }
            entries[key] = entry
        }
        return ConfigMapping(owner: self, entries: entries)
    }

    func sequence() throws(ConfigError) -> [ConfigNode] {
        guard case let .sequence(sequence) = node else { throw error("expected a list (lines starting with '- '), found \(kindName)") }
        return sequence.enumerated().map { index, element in
            ConfigNode(node: element, file: file, path: "\(path)[\(index)]")
        }
    }

    /// The scalar's text; mappings and lists are errors.
    func string() throws(ConfigError) -> String {
        guard case let .scalar(scalar) = node else { throw error("expected a single value, found \(kindName)") }
        return scalar.string
    }

    func int(in range: ClosedRange<Int>) throws(ConfigError) -> Int {
        let text = try string()
        guard let value = Int(text), range.contains(value) else {
            throw error("'\(text)' must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    func double(in range: ClosedRange<Double>) throws(ConfigError) -> Double {
        let text = try string()
        guard let value = Double(text), range.contains(value) else {
            throw error("'\(text)' must be a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    func bool() throws(ConfigError) -> Bool {
        let text = try string()
        switch text.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default: throw error("'\(text)' must be true or false")
        }
    }

    /// One of `choices`, with the list in the error.
    func choice(_ choices: [String]) throws(ConfigError) -> String {
        let text = try string()
        guard choices.contains(text) else { throw error("'\(text)' is not one of \(choices.joined(separator: ", "))") }
        return text
    }

    private var kindName: String {
        switch node {
        case .scalar: return "a single value"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    /// "did you mean 'bitrate'?" when a known key is one or two edits away, else the list.
    static func suggestion(for key: String, among allowed: [String]) -> String {
        let close = allowed.min { editDistance(key, $0) < editDistance(key, $1) }
        if let close, editDistance(key, close) <= 2 { return "did you mean '\(close)'?" }
        return "expected one of: \(allowed.joined(separator: ", "))"
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(1, b.count) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}

/// The checked entries of a mapping.
struct ConfigMapping {
    let owner: ConfigNode
    let entries: [String: ConfigNode]

    subscript(key: String) -> ConfigNode? { entries[key] }

    func required(_ key: String) throws(ConfigError) -> ConfigNode {
        guard let entry = entries[key] else { throw owner.error("missing required key '\(key)'") }
        return entry
    }
}
