/// An ingest URL as users paste it: `rtmp[s]://host[:port]/app[/instance]/streamkey[?query]`.
///
/// Splitting follows FFmpeg and OBS: the last path segment is the stream key and everything before it
/// is the application (so `app/instance` stays together). A query string travels with what it follows:
/// after the key it becomes part of the published stream name, after an application-only path
/// (`rtmp://host/app?token=…` plus a separate key) it stays in `app` and `tcUrl`.
///
/// A separately given key replaces the URL's key: with two or more path segments the last one is
/// dropped in its favour, with one segment that segment is the application.
///
/// `description` is `redacted`: stream keys and query strings (which often hold tokens) never reach a log.
public struct RTMPURL: Sendable, Hashable, CustomStringConvertible {
    public enum Scheme: String, Sendable, Hashable {
        case rtmp, rtmps

        public var defaultPort: Int {
            switch self {
            case .rtmp: return 1935
            case .rtmps: return 443
            }
        }

        /// Whether the connection must be wrapped in TLS.
        public var usesTLS: Bool { self == .rtmps }
    }

    public static let maximumPort = 65535

    public var scheme: Scheme
    /// Host name or address to connect to; IPv6 addresses without brackets.
    public var host: String
    public var port: Int
    /// The application (`connect`'s `app`), e.g. "live2" or "app/instance", plus its query if it had one.
    public var app: String
    /// The name to `publish`: the stream key plus its query, if it had one. Never log it.
    public var streamKey: String
    /// Whether the text named the port; `tcUrl` repeats exactly what the user wrote.
    private var portWasGiven: Bool

    /// - Parameters:
    ///   - string: the URL; surrounding whitespace (a pasted newline) is ignored.
    ///   - streamKey: a key given separately (OBS's "Stream Key" field); empty counts as absent.
    public init(_ string: String, streamKey separateKey: String? = nil) throws(RTMPError) {
        let text = Self.trimmed(Substring(string))
        guard let separator = text.firstRange(of: "://") else { throw .urlMissingScheme }
        let schemeText = text[..<separator.lowerBound].lowercased()
        guard let scheme = Scheme(rawValue: schemeText) else { throw .urlUnsupportedScheme(schemeText) }
        self.scheme = scheme

        let rest = text[separator.upperBound...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        (host, port, portWasGiven) = try Self.parseAuthority(rest[..<authorityEnd], scheme: scheme)

        var path = rest[authorityEnd...]
        var query: Substring = ""
        if let queryStart = path.firstIndex(of: "?") {
            query = path[queryStart...]
            path = path[..<queryStart]
        }
        let segments = path.split(separator: "/")
        guard !segments.isEmpty else { throw .urlMissingApplication }

        let key: Substring? = separateKey.map { Self.trimmed(Substring($0)) }.flatMap { $0.isEmpty ? nil : $0 }
        switch (key, segments.count) {
        case (let key?, 1):
            app = String(segments[0] + query)
            streamKey = String(key)
        case (let key?, _):
            app = segments.dropLast().joined(separator: "/")
            streamKey = String(key + query)
        case (nil, 1):
            throw .urlMissingStreamKey
        case (nil, _):
            app = segments.dropLast().joined(separator: "/")
            streamKey = String(segments[segments.count - 1] + query)
        }
        guard !streamKey.isEmpty, !streamKey.hasPrefix("?") else { throw .urlMissingStreamKey }
    }

    /// `connect`'s `tcUrl`: scheme, host, port if given, application (RTMP spec §7.2.1.1).
    public var tcURL: String {
        "\(serverPrefix)/\(app)"
    }

    /// The URL with the stream key and any query replaced, safe for logs.
    public var redacted: String {
        let appPath = app.split(separator: "?", maxSplits: 1)
        let appQuery = appPath.count > 1 ? "?<redacted>" : ""
        return "\(serverPrefix)/\(appPath.first ?? "")\(appQuery)/<key redacted>"
    }

    public var description: String { redacted }

    private var serverPrefix: String {
        let hostInURL = host.contains(":") ? "[\(host)]" : host
        return "\(scheme.rawValue)://\(hostInURL)\(portWasGiven ? ":\(port)" : "")"
    }

    private static func parseAuthority(
        _ authority: Substring, scheme: Scheme
    ) throws(RTMPError) -> (host: String, port: Int, portWasGiven: Bool) {
        guard !authority.isEmpty else { throw .urlInvalidHost(reason: "the URL has no host") }
        guard !authority.contains("@") else {
            throw .urlInvalidHost(reason: "user names and passwords in the URL are not supported; put credentials in the query string")
        }
        let host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw .urlInvalidHost(reason: "an IPv6 address needs a closing bracket, e.g. rtmp://[::1]/live/KEY")
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .urlInvalidHost(reason: "unexpected text after the IPv6 address") }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw .urlInvalidHost(reason: "\"\(host)\" is not an IPv6 address")
            }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else {
                throw .urlInvalidHost(reason: "put IPv6 addresses in brackets, e.g. rtmp://[::1]:1935/live/KEY")
            }
            host = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
            guard !host.isEmpty else { throw .urlInvalidHost(reason: "the URL has no host") }
            guard host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" }) else {
                throw .urlInvalidHost(reason: "\"\(host)\" contains characters a host name cannot have")
            }
        }
        guard let portText else { return (String(host), scheme.defaultPort, false) }
        guard portText.allSatisfy(\.isASCII), let port = Int(portText), (1...maximumPort).contains(port) else {
            throw .urlInvalidPort(String(portText))
        }
        return (String(host), port, true)
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let start = text.drop(while: \.isWhitespace)
        guard let last = start.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return start[...last]
    }
}
