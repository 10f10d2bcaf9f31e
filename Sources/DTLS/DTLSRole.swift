/// Which side of the DTLS handshake this endpoint plays. In WebRTC the SDP `a=setup` attribute
/// decides (RFC 8842): the answerer with `setup:passive` is the server, `setup:active` the client;
/// WebRTC's offer/answer settles it in `NegotiatedSession.dtlsRole`.
public enum DTLSRole: Sendable, Hashable {
    /// Sends the ClientHello (WHIP client, `a=setup:active`).
    case client
    /// Waits for the ClientHello (the WHEP server, `a=setup:passive`).
    case server
}
