/// An ICE candidate as SDP carries it (RFC 8839 §5.1):
/// `candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type>
/// [raddr <address> rport <port>] *(<extension name> <extension value>)`.
/// Extensions such as `generation`, `ufrag`, `network-id` and `tcptype` are kept in order.
public struct ICECandidate: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case host, srflx, prflx, relay

        /// RFC 8445 §5.1.2.2 recommended type preferences.
        public var typePreference: UInt32 {
            switch self {
            case .host: 126
            case .prflx: 110
            case .srflx: 100
            case .relay: 0
            }
        }
    }

    public struct Extension: Sendable, Hashable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public var foundation: String
    public var component: UInt8
    public var transport: String
    public var priority: UInt32
    /// An IP address or, for privacy-preserving browsers, an mDNS name (`<uuid>.local`).
    public var address: String
    public var port: UInt16
    public var kind: Kind
    public var relatedAddress: String?
    public var relatedPort: UInt16?
    public var extensions: [Extension]

    public init(foundation: String, component: UInt8 = 1, transport: String = "udp", priority: UInt32,
                address: String, port: UInt16, kind: Kind = .host, relatedAddress: String? = nil,
                relatedPort: UInt16? = nil, extensions: [Extension] = []) {
        self.foundation = foundation
        self.component = component
        self.transport = transport
        self.priority = priority
        self.address = address
        self.port = port
        self.kind = kind
        self.relatedAddress = relatedAddress
        self.relatedPort = relatedPort
        self.extensions = extensions
    }

    /// A host candidate for one of our UDP sockets, with the RFC 8445 §5.1.2.1 priority
    /// (`localPreference` orders several local addresses; 65535 is the most preferred).
    public static func host(_ address: TransportAddress, foundation: String = "1", localPreference: UInt16 = 65535) -> ICECandidate {
        ICECandidate(foundation: foundation, priority: priority(kind: .host, localPreference: localPreference, component: 1),
                     address: address.ip.description, port: address.port, kind: .host)
    }

    /// priority = 2^24 × type preference + 2^8 × local preference + (256 − component id).
    public static func priority(kind: Kind, localPreference: UInt16, component: UInt8) -> UInt32 {
        kind.typePreference << 24 | UInt32(localPreference) << 8 | (256 - UInt32(component))
    }

    /// Parses a trickled candidate (RFC 8840 fragments, WHIP PATCH bodies), with or without `candidate:`.
    public init(parsing text: String) throws(WebRTCError) {
        do {
            try self.init(sdp: Substring(text))
        } catch {
            throw .malformedLine(number: 1, line: String(text.prefix(120)), reason: error.reason)
        }
    }

    /// Parses the attribute value, with or without the leading `candidate:`.
    ///
    /// The grammar (RFC 8839 §5.1) writes every field in printable ASCII, and anything else is
    /// refused before the text is split: Swift compares and splits strings by grapheme, so a
    /// combining mark after the `:` of `candidate:` or after a space would join it, and the
    /// candidate would no longer read back as itself from its own `sdpValue`.
    init(sdp value: Substring) throws(SDPFieldError) {
        guard value.utf8.allSatisfy({ $0 == Self.space || Self.visibleASCII.contains($0) }) else {
            throw SDPFieldError("candidate has characters other than printable ASCII")
        }
        let body = value.hasPrefix("candidate:") ? value.dropFirst("candidate:".count) : value
        let fields = body.sdpFields
        guard fields.count >= 8, fields[6] == "typ" else {
            throw SDPFieldError("candidate needs '<foundation> <component> <transport> <priority> <address> <port> typ <type>'")
        }
        guard fields[0].count <= Self.maximumFoundationLength, fields[0].utf8.allSatisfy(Self.isICEChar) else {
            throw SDPFieldError("candidate foundation '\(fields[0].prefix(40))' must be 1–32 letters, digits, '+' or '/'")
        }
        foundation = String(fields[0])
        component = try sdpInteger(fields[1], "component")
        transport = fields[2].lowercased()
        priority = try sdpInteger(fields[3], "priority")
        address = String(fields[4])
        port = try sdpInteger(fields[5], "port")
        guard let kind = Kind(rawValue: String(fields[7])) else {
            throw SDPFieldError("candidate type '\(fields[7].prefix(16))' is unknown")
        }
        self.kind = kind
        var rest = fields.dropFirst(8)
        guard rest.count % 2 == 0 else {
            throw SDPFieldError("candidate extension without a value")
        }
        var extensions: [Extension] = []
        while let name = rest.popFirst(), let value = rest.popFirst() {
            switch name {
            case "raddr": relatedAddress = String(value)
            case "rport": relatedPort = try sdpInteger(value, "rport")
            default: extensions.append(Extension(name: String(name), value: String(value)))
            }
        }
        self.extensions = extensions
    }

    static let space = UInt8(ascii: " ")
    /// VCHAR (RFC 5234 §B.1).
    static let visibleASCII = UInt8(0x21)...UInt8(0x7E)
    static let maximumFoundationLength = 32

    /// ice-char (RFC 8839 §5.1): ALPHA / DIGIT / "+" / "/".
    static func isICEChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "+"), UInt8(ascii: "/"):
            true
        default:
            false
        }
    }

    /// The attribute value, `candidate:...`, as `a=` lines and trickle fragments carry it.
    public var sdpValue: String {
        var fields = ["candidate:\(foundation)", "\(component)", transport, "\(priority)", address, "\(port)", "typ", kind.rawValue]
        if let relatedAddress { fields += ["raddr", relatedAddress] }
        if let relatedPort { fields += ["rport", "\(relatedPort)"] }
        for item in extensions { fields += [item.name, item.value] }
        return fields.joined(separator: " ")
    }

    /// The address when it is an IP literal; nil for mDNS names, which this layer does not resolve.
    public var transportAddress: TransportAddress? {
        IPAddress(address).map { TransportAddress(ip: $0, port: port) }
    }
}
