import WebRTC

/// The body of an ICE restart PATCH and of its answer (RFC 8840 `application/trickle-ice-sdpfrag`,
/// RFC 9725 §4.4.1): new ICE credentials and candidates for the bundled transport.
public struct WHIPICERestartFragment: Sendable, Hashable {
    public var credentials: ICECredentials
    public var mid: String
    public var candidates: [ICECandidate]

    public init(credentials: ICECredentials, mid: String, candidates: [ICECandidate]) {
        self.credentials = credentials
        self.mid = mid
        self.candidates = candidates
    }

    /// `a=ice-ufrag`, `a=ice-pwd`, then the bundle tag's `m=` line (RFC 8840 §9) with its
    /// candidates and `a=end-of-candidates` (we gather nothing later).
    public var sdpfrag: String {
        var lines = ["a=ice-ufrag:\(credentials.ufrag)", "a=ice-pwd:\(credentials.pwd)", "m=video 9 UDP/TLS/RTP/SAVPF 0", "a=mid:\(mid)"]
        lines += candidates.map { "a=\($0.sdpValue)" }
        lines.append("a=end-of-candidates")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The server's answer fragment: its new credentials (session- or media-level) and candidates.
    public init(parsing text: String) throws(WHIPError) {
        var ufrag: String?, pwd: String?, mid = "0"
        var candidates: [ICECandidate] = []
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("a=ice-ufrag:") {
                ufrag = String(line.dropFirst("a=ice-ufrag:".count))
            } else if line.hasPrefix("a=ice-pwd:") {
                pwd = String(line.dropFirst("a=ice-pwd:".count))
            } else if line.hasPrefix("a=mid:") {
                mid = String(line.dropFirst("a=mid:".count))
            } else if line.hasPrefix("a=candidate:") {
                do {
                    candidates.append(try ICECandidate(parsing: String(line.dropFirst(2))))
                } catch {
                    throw .badAnswer("ICE restart answer: \(error)")
                }
            }
        }
        guard let ufrag, let pwd, !ufrag.isEmpty, !pwd.isEmpty else {
            throw .badAnswer("the ICE restart answer has no a=ice-ufrag/a=ice-pwd")
        }
        self.init(credentials: ICECredentials(ufrag: ufrag, pwd: pwd), mid: mid, candidates: candidates)
    }
}
