import Foundation

/// Where an RTP stream goes, from `rtp://HOST:PORT`: video RTP to PORT and its RTCP to PORT + 1
/// (RFC 3550 §11: the RTCP port is the next one above an even RTP port), audio to PORT + 2 and its
/// RTCP to PORT + 3: the layout the SDP's m-lines imply to every receiver.
public struct RTPDestination: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int

    public init(host: String, port: Int) throws(RTPOutputError) {
        // Room above for RTCP (+1) and audio (+2, +3).
        guard (1...65_532).contains(port) else {
            throw .invalidURL("rtp://\(host):\(port)", reason: "port must be 1…65532")
        }
        guard !host.isEmpty else { throw .invalidURL("rtp://:\(port)", reason: "no host") }
        self.host = host
        self.port = port
    }

    public init(url: String) throws(RTPOutputError) {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "rtp" else {
            throw .invalidURL(url, reason: "the scheme must be rtp")
        }
        guard let host = components.host, !host.isEmpty else { throw .invalidURL(url, reason: "no host") }
        guard let port = components.port else { throw .invalidURL(url, reason: "no port") }
        // URLComponents keeps the brackets of an IPv6 literal.
        try self.init(host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port)
    }

    public var rtcpPort: Int { port + 1 }
    public var audioPort: Int { port + 2 }
    public var audioRTCPPort: Int { port + 3 }

    public var description: String { host.contains(":") ? "rtp://[\(host)]:\(port)" : "rtp://\(host):\(port)" }
}
