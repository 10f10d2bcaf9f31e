import DTLS

/// One `a=` line, typed when WebRTC negotiation reads it, kept verbatim otherwise so a parsed
/// description serializes without losing anything (`a=rtcp:9 IN IP4 0.0.0.0`, `a=simulcast:...`).
public enum SDPAttribute: Sendable, Hashable {
    case mid(String)
    case rtpmap(RTPMap)
    case fmtp(FormatParameters)
    case rtcpFeedback(RTCPFeedback)
    case extmap(ExtensionMap)
    case iceUfrag(String)
    case icePwd(String)
    case iceOptions([String])
    /// RFC 8445 §5.3: the agent only answers checks (our WHEP server).
    case iceLite
    case fingerprint(DTLSFingerprint)
    case setup(DTLSSetupRole)
    case rtcpMux
    case rtcpReducedSize
    case direction(MediaDirection)
    case ssrc(SSRCAttribute)
    case ssrcGroup(SSRCGroup)
    case candidate(ICECandidate)
    case endOfCandidates
    case group(SDPGroup)
    case msidSemantic(SDPGroup)
    /// `a=msid:<stream id> [<track id>]` (RFC 8830 §2).
    case msid(stream: String, track: String?)
    /// Anything else: `a=<name>` or `a=<name>:<value>`.
    case unknown(name: String, value: String?)

    /// Parses the text after `a=`.
    init(sdp text: Substring) throws(SDPFieldError) {
        let name: Substring
        let value: Substring?
        if let colon = text.firstIndex(of: ":") {
            name = text[..<colon]
            value = text[text.index(after: colon)...]
        } else {
            name = text
            value = nil
        }
        guard !name.isEmpty, !name.contains(" ") else {
            throw SDPFieldError("attribute name '\(name.prefix(32))' is empty or has spaces")
        }
        if let flag = Self.flag(String(name)) {
            guard value == nil else {
                throw SDPFieldError("\(name) takes no value")
            }
            self = flag
            return
        }
        guard let value else {
            self = .unknown(name: String(name), value: nil)
            return
        }
        self = try Self.valued(name: String(name), value: value.trimmingSpaces)
    }

    private static func flag(_ name: String) -> SDPAttribute? {
        if let direction = MediaDirection(rawValue: name) { return .direction(direction) }
        switch name {
        case "ice-lite": return .iceLite
        case "rtcp-mux": return .rtcpMux
        case "rtcp-rsize": return .rtcpReducedSize
        case "end-of-candidates": return .endOfCandidates
        default: return nil
        }
    }

    private static func valued(name: String, value: Substring) throws(SDPFieldError) -> SDPAttribute {
        switch name {
        case "mid": return .mid(try nonEmpty(value, name))
        case "rtpmap": return .rtpmap(try RTPMap(sdp: value))
        case "fmtp": return .fmtp(try FormatParameters(sdp: value))
        case "rtcp-fb": return .rtcpFeedback(try RTCPFeedback(sdp: value))
        case "extmap": return .extmap(try ExtensionMap(sdp: value))
        case "ice-ufrag": return .iceUfrag(try nonEmpty(value, name))
        case "ice-pwd": return .icePwd(try nonEmpty(value, name))
        case "ice-options": return .iceOptions(value.sdpFields.map(String.init))
        case "fingerprint":
            do {
                return .fingerprint(try DTLSFingerprint(sdp: value))
            } catch {
                throw SDPFieldError(error.reason)
            }
        case "setup":
            guard let role = DTLSSetupRole(rawValue: String(value)) else {
                throw SDPFieldError("setup role '\(value.prefix(16))' is unknown")
            }
            return .setup(role)
        case "ssrc": return .ssrc(try SSRCAttribute(sdp: value))
        case "ssrc-group": return .ssrcGroup(try SSRCGroup(sdp: value))
        case "candidate": return .candidate(try ICECandidate(sdp: value))
        case "group": return .group(try SDPGroup(sdp: value))
        case "msid-semantic": return .msidSemantic(try SDPGroup(sdp: value))
        case "msid":
            let fields = value.sdpFields
            guard (1...2).contains(fields.count) else {
                throw SDPFieldError("msid needs '<stream id> [<track id>]'")
            }
            return .msid(stream: String(fields[0]), track: fields.count == 2 ? String(fields[1]) : nil)
        default: return .unknown(name: name, value: String(value))
        }
    }

    private static func nonEmpty(_ value: Substring, _ name: String) throws(SDPFieldError) -> String {
        guard !value.isEmpty, !value.contains(" ") else {
            throw SDPFieldError("\(name) must be one non-empty token")
        }
        return String(value)
    }

    /// The text after `a=`.
    var sdpValue: String {
        switch self {
        case .mid(let mid): "mid:\(mid)"
        case .rtpmap(let map): "rtpmap:\(map.sdpValue)"
        case .fmtp(let parameters): "fmtp:\(parameters.sdpValue)"
        case .rtcpFeedback(let feedback): "rtcp-fb:\(feedback.sdpValue)"
        case .extmap(let map): "extmap:\(map.sdpValue)"
        case .iceUfrag(let ufrag): "ice-ufrag:\(ufrag)"
        case .icePwd(let pwd): "ice-pwd:\(pwd)"
        case .iceOptions(let options): "ice-options:\(options.joined(separator: " "))"
        case .iceLite: "ice-lite"
        case .fingerprint(let fingerprint): "fingerprint:\(fingerprint.sdpValue)"
        case .setup(let role): "setup:\(role.rawValue)"
        case .rtcpMux: "rtcp-mux"
        case .rtcpReducedSize: "rtcp-rsize"
        case .direction(let direction): direction.rawValue
        case .ssrc(let ssrc): "ssrc:\(ssrc.sdpValue)"
        case .ssrcGroup(let group): "ssrc-group:\(group.sdpValue)"
        case .candidate(let candidate): candidate.sdpValue
        case .endOfCandidates: "end-of-candidates"
        case .group(let group): "group:\(group.sdpValue)"
        case .msidSemantic(let group): "msid-semantic:\(group.sdpValue)"
        case .msid(let stream, let track): "msid:\(stream)" + (track.map { " \($0)" } ?? "")
        case .unknown(let name, let value): name + (value.map { ":\($0)" } ?? "")
        }
    }
}
