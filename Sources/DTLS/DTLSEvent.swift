/// What a DTLS endpoint reports to its owner besides datagrams to send.
public enum DTLSEvent: Sendable, Equatable {
    /// The handshake finished, the peer's certificate matched its fingerprint, SRTP was negotiated:
    /// start protecting media with these keys.
    case connected(DTLSSRTPKeys)
    /// Application data from the peer (WebRTC data channels would use it; media does not).
    case applicationData([UInt8])
    /// The connection is over: the peer sent close_notify, or it failed (handshake, alert, timeout).
    case closed(DTLSCloseReason)
}

/// Why a DTLS connection ended.
public enum DTLSCloseReason: Sendable, Equatable {
    /// The peer closed cleanly (close_notify).
    case peerClosed
    /// The handshake or connection failed; the error says why.
    case failed(DTLSError)
}

/// The result of feeding an endpoint: datagrams to send to the peer, in order, and events.
public struct DTLSOutput: Sendable, Equatable {
    public var datagrams: [[UInt8]] = []
    public var events: [DTLSEvent] = []

    public init(datagrams: [[UInt8]] = [], events: [DTLSEvent] = []) {
        self.datagrams = datagrams
        self.events = events
    }
}
