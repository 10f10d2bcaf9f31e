#if canImport(Glibc)
import Glibc
#endif

/// Which `Host` names this server answers, matched exactly: a DNS-rebinding page names the server
/// by its own domain, and that domain may look like an address (`127.0.0.1.evil.example`,
/// `127.evil.example`) or a loopback name (`localhost.evil.example`). So loopback is `localhost`,
/// `::1`, or an IPv4 literal (parsed as four decimal octets) inside 127.0.0.0/8, never a prefix;
/// anything else must be in `allowed` (the listen address and the config's `allowed_hosts`).
enum HostAllowlist {
    /// `example.com` from `example.com:8080`, `::1` from `[::1]:8080`; lowercased.
    static func hostName(_ authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end]).lowercased()
        }
        return String(authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").lowercased()
    }

    /// Whether `host` (a name from ``hostName(_:)``) is loopback or one of `allowed`.
    static func isAllowed(host: String, allowed: Set<String>) -> Bool {
        isLoopback(host) || allowed.contains(host)
    }

    /// `localhost`, an IPv6 literal equal to `::1`, or an IPv4 literal in 127.0.0.0/8.
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" { return true }
        if let octets = ipv4Octets(host) { return octets[0] == 127 }
        if host.contains(":") {
            var address = in6_addr()
            guard inet_pton(AF_INET6, host, &address) == 1 else { return false }
            let bytes = withUnsafeBytes(of: address) { Array($0) }
            return bytes == Array(repeating: 0, count: 15) + [1]
        }
        return false
    }

    /// The four octets of a dotted-decimal IPv4 literal (`a.b.c.d`, each 0…255, digits only), or nil
    /// for anything else: a name, a shortened form (`127.1`), a trailing label (`127.0.0.1.evil`).
    static func ipv4Octets(_ host: String) -> [Int]? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var octets: [Int] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(part), value <= 255 else { return nil }
            octets.append(value)
        }
        return octets
    }
}
