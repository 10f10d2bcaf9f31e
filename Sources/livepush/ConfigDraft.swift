import Yams

/// A config under construction from command-line flags, as the YAML a user would write for
/// `livepush serve`: `stream` parses it with the same ``Config/ConfigParser`` (one validation, one
/// set of error messages) and `--print-config` prints it. Secrets stay out of the text: they are
/// `env:NAME` or `file:PATH` references, and the values the flags gave go in ``environment``.
struct ConfigDraft {
    /// An ordered YAML mapping.
    struct Mapping {
        private(set) var pairs: [(Node, Node)] = []

        /// The tag every node here carries: implicit, resolved by Yams' basic resolver (always a
        /// string). The emitter asks each scalar's resolved tag, and the default resolver would
        /// compile its NSRegularExpressions (ICU) to answer; the text written is the same either
        /// way, and ConfigParser reads every value as text.
        static var textTag: Tag { Tag(.implicit, .basic) }

        /// A scalar node of `text`, tagged ``textTag``.
        static func scalar(_ text: String) -> Node { Node(text, textTag) }

        mutating func set(_ key: String, _ value: String?) {
            guard let value else { return }
            pairs.append((Self.scalar(key), Self.scalar(value)))
        }

        mutating func set(_ key: String, _ value: Mapping?) {
            guard let value, !value.pairs.isEmpty else { return }
            pairs.append((Self.scalar(key), value.node))
        }

        mutating func set(_ key: String, list: [Mapping]) {
            guard !list.isEmpty else { return }
            pairs.append((Self.scalar(key), Node(list.map(\.node), Self.textTag)))
        }

        mutating func set(_ key: String, strings: [String]) {
            guard !strings.isEmpty else { return }
            pairs.append((Self.scalar(key), Node(strings.map { Self.scalar($0) }, Self.textTag)))
        }

        var node: Node { Node(pairs, Self.textTag) }

        /// This `- KIND: {settings}` output with `rendition: NAME` in its settings (unchanged for nil).
        func taking(rendition name: String?) -> Mapping { setting("rendition", name) }

        /// This `- KIND: {settings}` output with `key: value` in its settings (unchanged for nil).
        func setting(_ key: String, _ value: String?) -> Mapping {
            guard let value, pairs.count == 1, case var .mapping(settings) = pairs[0].1 else { return self }
            settings[key] = Self.scalar(value)
            var output = self
            output.pairs[0].1 = .mapping(settings)
            return output
        }

        /// The `KIND` of a `- KIND: {settings}` output.
        var outputKind: String? { pairs.count == 1 ? pairs[0].0.string : nil }

        /// One entry of a camera's `outputs:` list: `- KIND: {settings}`.
        static func output(_ kind: String, _ settings: Mapping) -> Mapping {
            var output = Mapping()
            output.pairs.append((Self.scalar(kind), settings.node))
            return output
        }
    }

    var root = Mapping()
    /// Values of the `env:NAME` secrets the text refers to, for this run only.
    var environment: [String: String] = [:]
    /// Lines that explain the text, printed as YAML comments above it.
    var notes: [String] = []

    /// `env:NAME`, with the value kept for this run.
    mutating func secret(_ value: String, name: String) -> String {
        environment[name] = value
        return "env:\(name)"
    }

    func yaml() throws -> String { try Yams.serialize(node: root.node) }
}
