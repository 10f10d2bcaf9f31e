/// `srt://HOST:PORT?key=value&…` split into its address and query fields, percent-decoding the
/// values (a passphrase may hold `&` or `=`). Pure: the config parser and `livepush stream` both
/// read SRT URLs with it and give the fields the YAML keys' checks.
public struct SRTURL: Sendable, Equatable {
    /// The query keys libsrt's URLs use that livepush takes.
    public static let queryKeys = ["streamid", "passphrase", "pbkeylen", "latency", "mode", "audio_codec"]

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case notSRT
        case missingPort
        case badPort(String)
        case unknownQueryKey(String)
        case repeatedQueryKey(String)
        case badPercentEncoding(key: String)

        public var description: String {
            switch self {
            case .notSRT: return "must be srt://HOST:PORT"
            case .missingPort: return "needs a port: srt://HOST:PORT"
            case let .badPort(text): return "port '\(text)' must be a number from 1 to 65535"
            case let .unknownQueryKey(key): return "unknown query key '\(key)'; expected one of: \(SRTURL.queryKeys.joined(separator: ", "))"
            case let .repeatedQueryKey(key): return "query key '\(key)' is given twice"
            case let .badPercentEncoding(key): return "the value of '\(key)' has a bad %-escape"
            }
        }
    }

    public var host: String
    public var port: Int
    /// The query's fields by key, values decoded.
    public var query: [String: String]

    public init(_ text: String) throws(Failure) {
        guard text.hasPrefix("srt://") else { throw .notSRT }
        let rest = text.dropFirst("srt://".count)
        let authority = rest.prefix { $0 != "?" && $0 != "/" }
        let afterAuthority = rest.dropFirst(authority.count)
        guard let colon = authority.lastIndex(of: ":") else { throw .missingPort }
        var host = String(authority[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let portText = String(authority[authority.index(after: colon)...])
        guard let port = Int(portText), (1...65535).contains(port) else { throw .badPort(portText) }
        self.host = host
        self.port = port
        query = [:]
        guard let mark = afterAuthority.firstIndex(of: "?") else { return }
        for pair in afterAuthority[afterAuthority.index(after: mark)...].split(separator: "&") {
            let key = String(pair.prefix { $0 != "=" })
            guard Self.queryKeys.contains(key) else { throw .unknownQueryKey(key) }
            guard query[key] == nil else { throw .repeatedQueryKey(key) }
            guard let value = Self.percentDecoded(pair.dropFirst(key.count + 1)) else { throw .badPercentEncoding(key: key) }
            query[key] = value
        }
    }

    /// `%41` → `A`; nil for a truncated or non-hex escape or bytes that are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = utf8.next(), let low = utf8.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
