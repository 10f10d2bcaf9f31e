import FuzzCore
import NIOCore
import WebRTC

/// The ICE agent's credentials: the fuzzer cannot forge MESSAGE-INTEGRITY, so most inputs stop at
/// the integrity check, as they would from an attacker who does not know the password.
private let localCredentials = ICECredentials(ufrag: "srvUfrag", pwd: "serverPassword0123456789")
private let browser = TransportAddress("192.0.2.7", 50000)!

/// STUN datagrams on a WHEP viewer's ICE port: the message codec (attributes, padding, XOR
/// addresses), FINGERPRINT and MESSAGE-INTEGRITY checks, and the ICE-lite agent that answers binding
/// requests. A decoded message must re-encode to the same message.
func checkSTUN(_ input: [UInt8]) throws(FuzzInvariantBroken) {
    let datagram = FuzzInput.byteBuffer(input)
    _ = try? STUNMessage.checkFingerprint(of: datagram)
    _ = try? STUNMessage.checkIntegrity(of: datagram, key: Array(localCredentials.pwd.utf8))
    var buffer = datagram
    if let message = try? STUNMessage(from: &buffer) {
        try fuzzRequireWireRoundTrip(message, encodedSize: message.encodedSize) { $0.write(to: &$1) } decode: { try STUNMessage(from: &$0) }
    }
    var agent = ICELiteAgent(
        localCredentials: localCredentials, remoteCredentials: ICECredentials(ufrag: "brwsr", pwd: "browserPassword0123456789"), nowNanos: 0)
    _ = agent.handle(.datagram(datagram, from: browser, nowNanos: 1))
    return
}

extension FuzzTarget {
    public static let stun = FuzzTarget(name: "FuzzSTUN", check: checkSTUN)
}
