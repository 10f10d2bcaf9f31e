import Foundation

/// An absolute http(s) URL of a WHIP endpoint or session resource, split the way the HTTP client
/// needs it. ``redacted`` is what logs and status show: services put publish keys in the query
/// (`?token=`) or in a long path segment, so both are masked.
public struct WHIPURL: Sendable, Hashable, CustomStringConvertible {
    public let isTLS: Bool
    public let host: String
    public let port: Int
    /// Path and query as the request line carries them (percent-encoded, at least "/").
    public let target: String

    public init(_ text: String) throws(WHIPError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty else {
            throw .badURL(Self.mask(text))
        }
        isTLS = scheme == "https"
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? (isTLS ? 443 : 80)
        guard (1...65535).contains(port) else { throw .badURL(Self.mask(text)) }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        target = path + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
    }

    /// A `Location` (absolute, or relative to this URL as RFC 3986 §5 resolves it).
    public func resolving(_ reference: String) throws(WHIPError) -> WHIPURL {
        guard !reference.isEmpty, let base = URL(string: description),
              let resolved = URL(string: reference, relativeTo: base)?.absoluteString else {
            throw .badLocation(Self.mask(reference))
        }
        do {
            return try WHIPURL(resolved)
        } catch {
            throw .badLocation(Self.mask(reference))
        }
    }

    private var authority: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isTLS ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// The `Host` header (RFC 9110 §7.2).
    var hostHeader: String { authority }

    public var description: String { "\(isTLS ? "https" : "http")://\(authority)\(target)" }

    /// For logs: query values and path segments that look like keys replaced by `***`.
    public var redacted: String { Self.mask(description) }

    /// A path segment this long is probably a key (MediaMTX and Cloudflare put one there).
    static let keyLikeSegmentLength = 24

    /// Masks query values and key-like path segments of any URL-ish text.
    static func mask(_ text: String) -> String {
        let (beforeQuery, query) = split(text, at: "?")
        let (schemeAndAuthority, path) = splitAuthority(beforeQuery)
        let maskedPath = path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.count >= keyLikeSegmentLength ? "\(segment.prefix(4))***" : String(segment)
        }.joined(separator: "/")
        guard let query else { return schemeAndAuthority + maskedPath }
        let maskedQuery = query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let (name, value) = split(String(pair), at: "=")
            return value == nil ? name : "\(name)=***"
        }.joined(separator: "&")
        return schemeAndAuthority + maskedPath + "?" + maskedQuery
    }

    private static func split(_ text: String, at separator: Character) -> (String, String?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (String(text[..<index]), String(text[text.index(after: index)...]))
    }

    /// `scheme://user@host:port` (user info dropped) and the rest.
    private static func splitAuthority(_ text: String) -> (String, String) {
        guard let schemeEnd = text.range(of: "://") else { return ("", text) }
        let afterScheme = text[schemeEnd.upperBound...]
        let authorityEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        var authority = afterScheme[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return (String(text[..<schemeEnd.upperBound]) + String(authority), String(afterScheme[authorityEnd...]))
    }
}
