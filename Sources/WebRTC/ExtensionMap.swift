/// `a=extmap:<id>[/<direction>] <uri> [<attributes>]` (RFC 8285 §8): which RTP header extension
/// id carries what, for instance the 3GPP video orientation (CVO) or transport-wide sequence numbers.
public struct ExtensionMap: Sendable, Hashable {
    public static let videoOrientation = "urn:3gpp:video-orientation"
    public static let transportWideCC = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    public static let absoluteCaptureTime = "http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time"
    public static let playoutDelay = "http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"

    public var id: UInt8
    public var direction: MediaDirection?
    public var uri: String
    public var attributes: String?

    public init(id: UInt8, direction: MediaDirection? = nil, uri: String, attributes: String? = nil) {
        self.id = id
        self.direction = direction
        self.uri = uri
        self.attributes = attributes
    }

    init(sdp value: Substring) throws(SDPFieldError) {
        let fields = value.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard fields.count >= 2 else {
            throw SDPFieldError("extmap needs '<id> <uri>'")
        }
        let idAndDirection = fields[0].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        id = try sdpInteger(idAndDirection[0], "extmap id")
        // One-byte ids are 1–14, two-byte ids up to 255; 0 and 15 are reserved (RFC 8285 §4.2).
        guard (1...255).contains(id), id != 15 else {
            throw SDPFieldError("extmap id \(id) is reserved")
        }
        if idAndDirection.count == 2 {
            guard let parsed = MediaDirection(rawValue: String(idAndDirection[1])) else {
                throw SDPFieldError("extmap direction '\(idAndDirection[1].prefix(16))' is unknown")
            }
            direction = parsed
        } else {
            direction = nil
        }
        uri = String(fields[1])
        attributes = fields.count == 3 ? String(fields[2]) : nil
    }

    var sdpValue: String {
        "\(id)" + (direction.map { "/\($0.rawValue)" } ?? "") + " \(uri)" + (attributes.map { " \($0)" } ?? "")
    }
}
