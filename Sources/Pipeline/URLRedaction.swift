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
