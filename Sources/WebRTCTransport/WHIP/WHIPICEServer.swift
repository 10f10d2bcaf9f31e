/// A STUN or TURN server the WHIP endpoint suggests (RFC 9725 §4.6), from a response's
/// `Link: <stun:stun.example.net>; rel="ice-server"` headers (RFC 8288 link values; TURN ones
/// carry `username`, `credential` and `credential-type`).
public struct WHIPICEServer: Sendable, Hashable {
    /// `stun:`, `stuns:`, `turn:` or `turns:` URI (RFC 7064, RFC 7065).
    public var url: String
    public var username: String?
    public var credential: String?

    public init(url: String, username: String? = nil, credential: String? = nil) {
        self.url = url
        self.username = username
        self.credential = credential
    }

    /// Host and port of a plain `stun:` server (default port 3478); nil for the others, which this
    /// client does not use.
    public var stunAddress: (host: String, port: Int)? {
        guard url.lowercased().hasPrefix("stun:") else { return nil }
        var rest = Substring(url.dropFirst("stun:".count))
        if let query = rest.firstIndex(of: "?") { rest = rest[..<query] }
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            let host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return nil }
            return Self.withPort(host, after.dropFirst())
        }
        let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, let host = parts.first, !host.isEmpty else { return nil }
        return Self.withPort(String(host), parts.count == 2 ? parts[1] : "")
    }

    private static func withPort(_ host: String, _ port: Substring) -> (host: String, port: Int)? {
        guard !host.isEmpty else { return nil }
        guard !port.isEmpty else { return (host, 3478) }
        guard let number = Int(port), (1...65535).contains(number) else { return nil }
        return (host, number)
    }

    /// Every `rel="ice-server"` link in the given `Link` header values (each may hold several
    /// comma-separated links). Malformed links are skipped: the servers are only a hint.
    public static func parse(linkHeaders: [String]) -> [WHIPICEServer] {
        linkHeaders.flatMap { split(Substring($0), at: ",") }.compactMap(parseLink)
    }

    /// `<URI> *( ";" name [ "=" value ] )`, value a token or a quoted string.
    private static func parseLink(_ link: Substring) -> WHIPICEServer? {
        let trimmed = link.drop { $0 == " " || $0 == "\t" }
        guard trimmed.hasPrefix("<"), let close = trimmed.firstIndex(of: ">") else { return nil }
        let url = String(trimmed[trimmed.index(after: trimmed.startIndex)..<close]).trimmingSpaces
        var parameters: [String: String] = [:]
        // The piece before the first ";" is empty (the URI ended there).
        for parameter in split(trimmed[trimmed.index(after: close)...], at: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard let name = pair.first?.trimmingSpaces.lowercased(), !name.isEmpty else { continue }
            parameters[name] = pair.count == 2 ? unquote(pair[1].trimmingSpaces) : ""
        }
        let relations = (parameters["rel"] ?? "").lowercased().split(separator: " ")
        guard !url.isEmpty, relations.contains("ice-server") else { return nil }
        return WHIPICEServer(url: url, username: parameters["username"], credential: parameters["credential"])
    }

    /// Splits at `separator` outside `<…>` and quoted strings (which may escape with a backslash).
    private static func split(_ text: Substring, at separator: Character) -> [Substring] {
        var pieces: [Substring] = []
        var start = text.startIndex, inURI = false, inQuotes = false, escaped = false
        for index in text.indices {
            let character = text[index]
            if escaped { escaped = false; continue }
            switch character {
            case "\\" where inQuotes: escaped = true
            case "\"" where !inURI: inQuotes.toggle()
            case "<" where !inQuotes: inURI = true
            case ">" where !inQuotes: inURI = false
            case separator where !inURI && !inQuotes:
                pieces.append(text[start..<index])
                start = text.index(after: index)
            default: break
            }
        }
        pieces.append(text[start...])
        return pieces
    }

    private static func unquote(_ value: String) -> String {
        guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return value }
        var result = "", escaped = false
        for character in value.dropFirst().dropLast() {
            if !escaped && character == "\\" { escaped = true; continue }
            escaped = false
            result.append(character)
        }
        return result
    }
}

private extension StringProtocol {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
