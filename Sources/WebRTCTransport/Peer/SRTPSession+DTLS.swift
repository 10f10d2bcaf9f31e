import DTLS
import SRTP

extension SRTPSession {
    /// The two SRTP directions a DTLS-SRTP handshake keys (RFC 5764 §4.2): outbound protects with
    /// our half of the exported keys, inbound checks the peer's RTCP with theirs. Both WebRTC
    /// roles (a WHEP viewer, the WHIP client) start their media this way.
    static func directions(keyedBy keys: DTLSSRTPKeys) throws(SRTPError) -> (outbound: SRTPSession, inbound: SRTPSession) {
        let outbound = try SRTPSession(keyingMaterial: SRTPKeyingMaterial(masterKey: keys.localMasterKey, masterSalt: keys.localMasterSalt), role: .sender)
        let inbound = try SRTPSession(keyingMaterial: SRTPKeyingMaterial(masterKey: keys.remoteMasterKey, masterSalt: keys.remoteMasterSalt), role: .receiver)
        return (outbound, inbound)
    }
}
