/// Which side of the DTLS handshake this endpoint plays. In WebRTC the SDP `a=setup` attribute
/// decides (RFC 8842): the answerer with `setup:passive` is the server, `setup:active` the client.
public enum DTLSRole: Sendable, Equatable {
    /// Sends the ClientHello (WHIP client, `a=setup:active`).
    case client
    /// Waits for the ClientHello (the WHEP server, `a=setup:passive`).
    case server
}
