/// URLs as logs, status and the API show them: services put publish keys in the query
/// (`?token=`), in the user info, or as a long path segment (MediaMTX, Cloudflare), so those are
/// masked and the rest stays readable.
public enum URLRedaction {
    /// A path segment this long is probably a key (MediaMTX and Cloudflare put one there).
    static let keyLikeSegmentLength = 24

    /// Masks query values and key-like path segments of any URL-ish text.
    public static func mask(_ text: String) -> String {
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

    /// An RTMP URL that carries its stream key as the last path segment (`rtmp://host/app/KEY`),
    /// whatever the key's length, with that segment shown as `***` and the rest masked as ``mask(_:)``.
    public static func maskStreamName(_ text: String) -> String {
        let (beforeQuery, query) = split(text, at: "?")
        let (schemeAndAuthority, path) = splitAuthority(beforeQuery)
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if namesStreamKey(text), let last = segments.lastIndex(where: { !$0.isEmpty }) { segments[last] = "***" }
        return mask(schemeAndAuthority + segments.joined(separator: "/") + (query.map { "?" + $0 } ?? ""))
    }

    /// Whether an RTMP URL names its stream key: two or more path segments, the last the key (as
    /// `RTMPURL` splits them); `rtmp://host/app` names only the application.
    public static func namesStreamKey(_ text: String) -> Bool {
        splitAuthority(split(text, at: "?").0).1.split(separator: "/").count >= 2
    }

    /// Only `scheme://host:port` (user info dropped), with "/…" where a path or query followed: for
    /// errors about a URL's form, which need no path, and an RTMP path ends in the stream key whatever
    /// its length. Text without "://" shows as "…".
    public static func origin(of text: String) -> String {
        let (schemeAndAuthority, rest) = splitAuthority(split(text, at: "?").0)
        guard !schemeAndAuthority.isEmpty else { return "…" }
        return schemeAndAuthority + (rest.isEmpty && !text.contains("?") ? "" : "/…")
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
