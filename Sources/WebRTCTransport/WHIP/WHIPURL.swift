import Foundation
import Output

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
            throw .badURL(URLRedaction.mask(text))
        }
        isTLS = scheme == "https"
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? (isTLS ? 443 : 80)
        guard (1...65535).contains(port) else { throw .badURL(URLRedaction.mask(text)) }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        target = path + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
    }

    /// A `Location` (absolute, or relative to this URL as RFC 3986 §5 resolves it).
    public func resolving(_ reference: String) throws(WHIPError) -> WHIPURL {
        guard !reference.isEmpty, let base = URL(string: description),
              let resolved = URL(string: reference, relativeTo: base)?.absoluteString else {
            throw .badLocation(URLRedaction.mask(reference))
        }
        do {
            return try WHIPURL(resolved)
        } catch {
            throw .badLocation(URLRedaction.mask(reference))
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
    public var redacted: String { URLRedaction.mask(description) }
}
