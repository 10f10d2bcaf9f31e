/// `a=rtpmap:<payload type> <encoding name>/<clock rate>[/<channels>]` (RFC 8866 §6.6): what a
/// dynamic payload type of an `m=` line means.
public struct RTPMap: Sendable, Hashable {
    public var payloadType: UInt8
    public var encodingName: String
    public var clockRate: Int
    public var channels: Int?

    public init(payloadType: UInt8, encodingName: String, clockRate: Int, channels: Int? = nil) {
        self.payloadType = payloadType
        self.encodingName = encodingName
        self.clockRate = clockRate
        self.channels = channels
    }

    init(sdp value: Substring) throws(SDPFieldError) {
        let fields = value.sdpFields
        guard fields.count == 2 else {
            throw SDPFieldError("rtpmap needs '<pt> <encoding>/<rate>'")
        }
        payloadType = try sdpPayloadType(fields[0])
        let parts = fields[1].split(separator: "/", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), !parts[0].isEmpty else {
            throw SDPFieldError("rtpmap encoding must be name/rate[/channels]")
        }
        encodingName = String(parts[0])
        clockRate = try sdpInteger(parts[1], "clock rate", as: UInt32.self).asInt
        channels = parts.count == 3 ? try sdpInteger(parts[2], "channels", as: UInt8.self).asInt : nil
    }

    var sdpValue: String {
        "\(payloadType) \(encodingName)/\(clockRate)" + (channels.map { "/\($0)" } ?? "")
    }

    /// Encoding names compare case-insensitively (RFC 4855 §3).
    func isEncoding(_ name: String) -> Bool {
        encodingName.lowercased() == name.lowercased()
    }
}

/// RTP payload types are 7 bits (RFC 3550 §5.1).
func sdpPayloadType(_ text: Substring) throws(SDPFieldError) -> UInt8 {
    let value: UInt8 = try sdpInteger(text, "payload type")
    guard value < 128 else {
        throw SDPFieldError("payload type \(value) is over 127")
    }
    return value
}

extension FixedWidthInteger {
    var asInt: Int { Int(self) }
}
