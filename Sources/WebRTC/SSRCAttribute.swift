/// `a=ssrc:<ssrc> <attribute>[:<value>]` (RFC 5576 §4.1): a source's `cname` or `msid`, which is
/// how a receiver ties an SSRC to its track before the first RTCP SDES arrives.
public struct SSRCAttribute: Sendable, Hashable {
    public var ssrc: UInt32
    public var name: String
    public var value: String?

    public init(ssrc: UInt32, name: String, value: String? = nil) {
        self.ssrc = ssrc
        self.name = name
        self.value = value
    }

    init(sdp value: Substring) throws(SDPFieldError) {
        guard let space = value.firstIndex(of: " ") else {
            throw SDPFieldError("ssrc needs '<ssrc> <attribute>'")
        }
        ssrc = try sdpInteger(value[..<space], "ssrc")
        let rest = value[value.index(after: space)...]
        if let colon = rest.firstIndex(of: ":") {
            name = String(rest[..<colon])
            self.value = String(rest[rest.index(after: colon)...])
        } else {
            name = String(rest)
            self.value = nil
        }
        guard !name.isEmpty else {
            throw SDPFieldError("ssrc attribute name is empty")
        }
    }

    var sdpValue: String {
        "\(ssrc) \(name)" + (value.map { ":\($0)" } ?? "")
    }
}

/// `a=ssrc-group:<semantics> <ssrc>...` (RFC 5576 §4.2), e.g. `FID <media> <rtx>` pairing a stream
/// with its RFC 4588 retransmission stream.
public struct SSRCGroup: Sendable, Hashable {
    public var semantics: String
    public var ssrcs: [UInt32]

    public init(semantics: String, ssrcs: [UInt32]) {
        self.semantics = semantics
        self.ssrcs = ssrcs
    }

    init(sdp value: Substring) throws(SDPFieldError) {
        let fields = value.sdpFields
        guard fields.count >= 2 else {
            throw SDPFieldError("ssrc-group needs '<semantics> <ssrc>...'")
        }
        semantics = String(fields[0])
        var ssrcs: [UInt32] = []
        for field in fields.dropFirst() {
            ssrcs.append(try sdpInteger(field, "ssrc"))
        }
        self.ssrcs = ssrcs
    }

    var sdpValue: String {
        ([semantics] + ssrcs.map(String.init)).joined(separator: " ")
    }
}
