/// `a=setup:` (RFC 4145 §4, RFC 8842 §5): which side opens the DTLS handshake. An offer says
/// `actpass`; the answer picks `active` (DTLS client) or `passive` (DTLS server).
public enum DTLSSetupRole: String, Sendable, Hashable {
    case active, passive, actpass, holdconn
}
