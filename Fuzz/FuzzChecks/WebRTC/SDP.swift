import DTLS
import FuzzCore
import WebRTC

/// The negotiation's fixed local side, as a `serve` with one camera has it.
private let answerer = WebRTCAnswerer(
    capabilities: SenderCapabilities(),
    sources: LocalSources(videoSSRC: 0x1111_1111, videoRTXSSRC: 0x2222_2222, audioSSRC: 0x3333_3333, cname: "livepush"),
    transport: LocalTransportParameters(
        credentials: ICECredentials(ufrag: "srvUfrag", pwd: "serverPassword0123456789"),
        fingerprint: DTLSFingerprint(algorithm: .sha256, bytes: Array(0..<32)),
        candidates: [.host(TransportAddress("127.0.0.1", 40000)!)],
        iceLite: true))

/// SDP as a WHEP offer body or a WHIP answer brings it (RFC 8866, JSEP attributes). A parsed
/// description must print as text that parses to the same description, and an offer must either
/// be refused with a typed error or answered with SDP that itself parses back the same.
func checkSDP(_ input: [UInt8]) throws(FuzzInvariantBroken) {
    guard let text = FuzzInput.string(input), let description = try? SessionDescription(parsing: text) else { return }
    try fuzzRequireRoundTrip(description, encode: \.sdp, decode: { try SessionDescription(parsing: $0) })
    if let (answer, _) = try? answerer.answer(description, sessionID: 1) {
        try fuzzRequireRoundTrip(answer, encode: \.sdp, decode: { try SessionDescription(parsing: $0) })
    }
    return
}

extension FuzzTarget {
    public static let sdp = FuzzTarget(name: "FuzzSDP", check: checkSDP)
}
