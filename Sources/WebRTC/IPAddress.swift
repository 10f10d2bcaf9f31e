#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address as its network-order bytes: what STUN's XOR-MAPPED-ADDRESS carries and
/// what ICE candidates and the demultiplexer's 5-tuples compare. Pure value; the UDP layer
/// converts to and from its socket addresses.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses dotted-quad IPv4 or RFC 4291 IPv6 text (`127.0.0.1`, `::1`); nil for anything else,
    /// including host names such as mDNS `.local` candidates.
    public init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    public var isIPv4: Bool { bytes.count == 4 }

    public var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = isIPv4 ? AF_INET : AF_INET6
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &text, socklen_t(text.count)) != nil
        }
        guard ok else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// An IP address and UDP port: one end of a candidate pair or of a 5-tuple.
public struct TransportAddress: Sendable, Hashable, CustomStringConvertible {
    public var ip: IPAddress
    public var port: UInt16

    public init(ip: IPAddress, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    /// For tests and configuration: `TransportAddress("127.0.0.1", 5000)`.
    public init?(_ ip: String, _ port: UInt16) {
        guard let address = IPAddress(ip) else { return nil }
        self.init(ip: address, port: port)
    }

    public var description: String {
        ip.isIPv4 ? "\(ip):\(port)" : "[\(ip)]:\(port)"
    }
}
