/// One media section: the `m=` line and the lines up to the next (RFC 8866 §5.14). In WebRTC each
/// is one transceiver, named by its `a=mid`.
public struct MediaDescription: Sendable, Hashable {
    /// `audio`, `video` or `application`.
    public var media: String
    /// 0 rejects the section (RFC 3264 §6); bundled sections carry 9, the discard port.
    public var port: UInt16
    /// `UDP/TLS/RTP/SAVPF` for WebRTC media.
    public var proto: String
    /// Payload types for RTP, as text because other protocols put other things here.
    public var formats: [String]
    public var connection: SDPConnection?
    /// `i=`, `b=` and `k=` lines, kept in order.
    public var otherLines: [SDPLine]
    public var attributes: [SDPAttribute]

    public init(media: String, port: UInt16 = 9, proto: String = "UDP/TLS/RTP/SAVPF", formats: [String],
                connection: SDPConnection? = SDPConnection(), otherLines: [SDPLine] = [], attributes: [SDPAttribute] = []) {
        self.media = media
        self.port = port
        self.proto = proto
        self.formats = formats
        self.connection = connection
        self.otherLines = otherLines
        self.attributes = attributes
    }

    init(sdp value: Substring) throws(SDPFieldError) {
        let fields = value.sdpFields
        guard fields.count >= 3 else {
            throw SDPFieldError("media needs '<media> <port> <proto> <fmt>...'")
        }
        media = String(fields[0])
        // `<port>/<number of ports>` is legal but meaningless for WebRTC; keep the port.
        port = try sdpInteger(fields[1].prefix { $0 != "/" }, "port")
        proto = String(fields[2])
        formats = fields.dropFirst(3).map(String.init)
        connection = nil
        otherLines = []
        attributes = []
    }

    var sdpValue: String {
        ([media, "\(port)", proto] + formats).joined(separator: " ")
    }
}

// MARK: - Typed views of the attributes

extension MediaDescription {
    public var mid: String? {
        attributes.lazy.compactMap { if case .mid(let mid) = $0 { mid } else { nil } }.first
    }

    /// The section's direction; `sendrecv` when none is given (RFC 8866 §6.7).
    public var direction: MediaDirection {
        attributes.lazy.compactMap { if case .direction(let direction) = $0 { direction } else { nil } }.first ?? .sendrecv
    }

    public var rtpMaps: [RTPMap] {
        attributes.compactMap { if case .rtpmap(let map) = $0 { map } else { nil } }
    }

    public func formatParameters(for payloadType: UInt8) -> FormatParameters? {
        attributes.lazy.compactMap { if case .fmtp(let fmtp) = $0, fmtp.payloadType == payloadType { fmtp } else { nil } }.first
    }

    /// Feedback listed for this payload type or for `*`.
    public func feedback(for payloadType: UInt8) -> [RTCPFeedback] {
        attributes.compactMap {
            if case .rtcpFeedback(let feedback) = $0, feedback.payloadType == nil || feedback.payloadType == payloadType { feedback } else { nil }
        }
    }

    public var extensionMaps: [ExtensionMap] {
        attributes.compactMap { if case .extmap(let map) = $0 { map } else { nil } }
    }

    public var candidates: [ICECandidate] {
        attributes.compactMap { if case .candidate(let candidate) = $0 { candidate } else { nil } }
    }

    public var ssrcAttributes: [SSRCAttribute] {
        attributes.compactMap { if case .ssrc(let ssrc) = $0 { ssrc } else { nil } }
    }

    public var ssrcGroups: [SSRCGroup] {
        attributes.compactMap { if case .ssrcGroup(let group) = $0 { group } else { nil } }
    }

    /// Port 0 rejects a section unless it is `a=bundle-only` (RFC 9143 §7.5.3).
    public var isRejected: Bool {
        port == 0 && !attributes.contains(.unknown(name: "bundle-only", value: nil))
    }
}
