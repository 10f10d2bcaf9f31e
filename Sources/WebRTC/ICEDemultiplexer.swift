import NIOCore

/// Routes datagrams arriving on the one UDP port every WHEP viewer shares to the viewer's session:
/// STUN checks by the ufrag in USERNAME (ours comes first, RFC 8445 §7.2.2), everything else
/// (DTLS, SRTP, SRTCP, STUN responses) by the 5-tuple a validated check established. A datagram
/// from an unknown tuple is refused, so nobody reaches DTLS without knowing the ICE password.
public struct ICEDemultiplexer<Session: Hashable & Sendable>: Sendable {
    /// UDP, so the protocol is implied: local and remote address and port.
    public struct FiveTuple: Sendable, Hashable {
        public var local: TransportAddress
        public var remote: TransportAddress

        public init(local: TransportAddress, remote: TransportAddress) {
            self.local = local
            self.remote = remote
        }
    }

    private var sessionsByUfrag: [String: Session] = [:]
    private var sessionsByTuple: [FiveTuple: Session] = [:]

    public init() {}

    /// A new session listens for checks addressed to its local ufrag (also after an ICE restart).
    public mutating func register(localUfrag: String, for session: Session) {
        sessionsByUfrag[localUfrag] = session
    }

    /// After the session's agent validated a check from `tuple` (``ICELiteAgent/Action/validated(_:)``).
    public mutating func bind(_ tuple: FiveTuple, to session: Session) {
        sessionsByTuple[tuple] = session
    }

    /// Forgets every ufrag and tuple of the session: no further datagrams route to it.
    public mutating func remove(_ session: Session) {
        sessionsByUfrag = sessionsByUfrag.filter { $0.value != session }
        sessionsByTuple = sessionsByTuple.filter { $0.value != session }
    }

    /// The session a datagram belongs to, or nil to drop it.
    public func route(_ datagram: ByteBuffer, tuple: FiveTuple) -> Session? {
        if let ufrag = Self.localUfrag(of: datagram), let session = sessionsByUfrag[ufrag] {
            return session
        }
        return sessionsByTuple[tuple]
    }

    /// The part of USERNAME before the colon, when the datagram is a STUN message that has one
    /// (RFC 7983: first byte 0–3).
    static func localUfrag(of datagram: ByteBuffer) -> String? {
        guard let first = datagram.getInteger(at: datagram.readerIndex, as: UInt8.self), first <= 3 else { return nil }
        var copy = datagram
        guard let message = try? STUNMessage(from: &copy), let username = message.username else { return nil }
        return username.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
    }
}
