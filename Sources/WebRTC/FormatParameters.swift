/// `a=fmtp:<payload type> <parameters>` (RFC 8866 §6.15): codec parameters, for H.264 and Opus a
/// `;`-separated list of `key=value` (RFC 6184 §8.1, RFC 7587 §6.1). The text is kept as it came
/// so an unusual form (RED's `96/96`, telephone-event's `0-16`) survives a round trip.
public struct FormatParameters: Sendable, Hashable {
    public var payloadType: UInt8
    public var value: String

    public init(payloadType: UInt8, value: String) {
        self.payloadType = payloadType
        self.value = value
    }

    /// Builds the `key=value;key=value` form in the order given.
    public init(payloadType: UInt8, parameters: [(String, String)]) {
        self.init(payloadType: payloadType, value: parameters.map { "\($0)=\($1)" }.joined(separator: ";"))
    }

    init(sdp value: Substring) throws(SDPFieldError) {
        guard let space = value.firstIndex(of: " ") else {
            throw SDPFieldError("fmtp needs '<pt> <parameters>'")
        }
        payloadType = try sdpPayloadType(value[..<space])
        self.value = String(value[value.index(after: space)...].drop { $0 == " " })
    }

    var sdpValue: String {
        "\(payloadType) \(value)"
    }

    /// The `key=value` pairs; keys are case-insensitive (RFC 6184 §8.1), so they come lowercased.
    public var parameters: [String: String] {
        var result: [String: String] = [:]
        for item in value.split(separator: ";") {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = pair[0].trimmingSpaces.lowercased()
            result[key] = pair.count == 2 ? String(pair[1].trimmingSpaces) : ""
        }
        return result
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        let start = firstIndex { $0 != " " } ?? endIndex
        let end = lastIndex { $0 != " " }.map { index(after: $0) } ?? start
        return self[start..<end]
    }
}
