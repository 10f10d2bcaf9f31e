/// `a=group:<semantics> <mid>...` (RFC 5888 §5), here `BUNDLE` (RFC 9143): the media sections that
/// share one transport. Also serves `a=msid-semantic:<semantic> <id>...` (WebRTC's older `WMS`),
/// which has the same shape.
public struct SDPGroup: Sendable, Hashable {
    public var semantics: String
    public var identifiers: [String]

    public init(semantics: String, identifiers: [String]) {
        self.semantics = semantics
        self.identifiers = identifiers
    }

    init(sdp value: Substring) throws(SDPFieldError) {
        let fields = value.sdpFields
        guard let first = fields.first else {
            throw SDPFieldError("group needs a semantics token")
        }
        semantics = String(first)
        identifiers = fields.dropFirst().map(String.init)
    }

    var sdpValue: String {
        ([semantics] + identifiers).joined(separator: " ")
    }
}
