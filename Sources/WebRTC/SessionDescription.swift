/// A parsed SDP session description (RFC 8866): the session part and its media sections, as
/// WebRTC offers and answers carry them (RFC 8829 §5). Lines the negotiation code does not read
/// are preserved, so `SessionDescription(parsing: text).sdp` keeps everything the peer sent.
public struct SessionDescription: Sendable, Hashable {
    public var version: Int
    public var origin: SDPOrigin
    public var sessionName: String
    public var connection: SDPConnection?
    /// The first `t=` line; WebRTC uses `0 0` (unbounded).
    public var timing: String
    /// Session-level `i=`, `u=`, `e=`, `p=`, `b=`, further `t=`, `r=`, `z=`, `k=` lines, in order.
    public var otherLines: [SDPLine]
    public var attributes: [SDPAttribute]
    public var media: [MediaDescription]

    public init(origin: SDPOrigin, sessionName: String = "-", connection: SDPConnection? = nil, timing: String = "0 0",
                otherLines: [SDPLine] = [], attributes: [SDPAttribute] = [], media: [MediaDescription] = []) {
        version = 0
        self.origin = origin
        self.sessionName = sessionName
        self.connection = connection
        self.timing = timing
        self.otherLines = otherLines
        self.attributes = attributes
        self.media = media
    }

    /// The description as text, CRLF-terminated lines in RFC 8866 §5 order.
    public var sdp: String {
        var lines = ["v=\(version)", "o=\(origin.sdpValue)", "s=\(sessionName)"]
        lines += otherLines.filter { "iuep".contains($0.type) }.map { "\($0.type)=\($0.value)" }
        if let connection { lines.append("c=\(connection.sdpValue)") }
        lines += otherLines.filter { $0.type == "b" }.map { "b=\($0.value)" }
        lines.append("t=\(timing)")
        lines += otherLines.filter { "trzk".contains($0.type) }.map { "\($0.type)=\($0.value)" }
        lines += attributes.map { "a=\($0.sdpValue)" }
        for section in media {
            lines.append("m=\(section.sdpValue)")
            lines += section.otherLines.filter { $0.type == "i" }.map { "i=\($0.value)" }
            if let connection = section.connection { lines.append("c=\(connection.sdpValue)") }
            lines += section.otherLines.filter { $0.type != "i" }.map { "\($0.type)=\($0.value)" }
            lines += section.attributes.map { "a=\($0.sdpValue)" }
        }
        return lines.map { $0 + "\r\n" }.joined()
    }
}

// MARK: - Typed views of the session attributes

extension SessionDescription {
    /// The mids of the first `a=group:BUNDLE` (RFC 9143).
    public var bundleGroup: [String]? {
        attributes.lazy.compactMap { if case .group(let group) = $0, group.semantics == "BUNDLE" { group.identifiers } else { nil } }.first
    }

    public var isICELite: Bool {
        attributes.contains(.iceLite)
    }

    /// A session-level attribute, or nil; media-level values override it (RFC 8839 §5.4, RFC 8842).
    func sessionValue<T>(_ extract: (SDPAttribute) -> T?) -> T? {
        attributes.lazy.compactMap(extract).first
    }

    /// The value for a media section: its own attribute if it has one, else the session's.
    func value<T>(in section: MediaDescription, _ extract: (SDPAttribute) -> T?) -> T? {
        section.attributes.lazy.compactMap(extract).first ?? sessionValue(extract)
    }
}
