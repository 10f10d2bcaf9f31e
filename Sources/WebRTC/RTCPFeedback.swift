/// `a=rtcp-fb:<payload type or *> <type> [<parameter>]` (RFC 4585 §4.2): which RTCP feedback a
/// receiver sends for a codec (`nack`, `nack pli`, `ccm fir`, `goog-remb`, `transport-cc`).
public struct RTCPFeedback: Sendable, Hashable {
    /// nil for `*`: every payload type of the section.
    public var payloadType: UInt8?
    public var type: String
    public var parameter: String?

    public init(payloadType: UInt8?, type: String, parameter: String? = nil) {
        self.payloadType = payloadType
        self.type = type
        self.parameter = parameter
    }

    init(sdp value: Substring) throws(SDPFieldError) {
        let fields = value.sdpFields
        guard (2...3).contains(fields.count) else {
            throw SDPFieldError("rtcp-fb needs '<pt> <type> [<parameter>]'")
        }
        payloadType = fields[0] == "*" ? nil : try sdpPayloadType(fields[0])
        type = String(fields[1])
        parameter = fields.count == 3 ? String(fields[2]) : nil
    }

    var sdpValue: String {
        "\(payloadType.map(String.init) ?? "*") \(type)" + (parameter.map { " \($0)" } ?? "")
    }

    /// The same feedback for another payload type: what an answer echoes for the codec it chose.
    func applying(to payloadType: UInt8) -> RTCPFeedback {
        RTCPFeedback(payloadType: payloadType, type: type, parameter: parameter)
    }
}
