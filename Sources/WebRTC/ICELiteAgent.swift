import NIOCore

/// The WHEP server's side of ICE for one viewer (RFC 8445 §2.5 ICE-lite): it never sends checks,
/// it answers the browser's Binding requests on our host candidates, selects the pair the browser
/// nominates with USE-CANDIDATE, and declares the viewer gone when no valid request has arrived for
/// the consent timeout (RFC 7675 §5.1: the browser keeps sending them every ~5 s).
///
/// Events in (a datagram with its source, a timer tick, both with the time), actions out; the UDP
/// owner sends the bytes and runs the timer (``nextDeadlineNanos``).
public struct ICELiteAgent: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// RFC 7675 §5.1 recommends 30 s.
        public var consentTimeoutNanos: UInt64

        public init(consentTimeoutNanos: UInt64 = 30_000_000_000) {
            self.consentTimeoutNanos = consentTimeoutNanos
        }
    }

    public enum Event: Sendable {
        case datagram(ByteBuffer, from: TransportAddress, nowNanos: UInt64)
        case tick(nowNanos: UInt64)
    }

    public enum Action: Sendable, Equatable {
        case send(ByteBuffer, to: TransportAddress)
        /// The first valid check from this address: the owner may accept DTLS/SRTP from it
        /// (add its 5-tuple to the ``ICEDemultiplexer``).
        case validated(TransportAddress)
        /// The controlling agent nominated this address: send media there.
        case selected(TransportAddress)
        /// No valid check within the consent timeout: tear the viewer down.
        case consentExpired
        /// Input that was not a valid check, with why; answered with an error response when the
        /// request was STUN enough to answer.
        case dropped(WebRTCError)
    }

    public enum State: Sendable, Equatable {
        case waiting
        case connected(TransportAddress)
        case expired
    }

    public let localCredentials: ICECredentials
    /// From the offer; nil until trickled, when any remote ufrag is accepted.
    public var remoteCredentials: ICECredentials?
    public let configuration: Configuration
    public private(set) var state: State = .waiting
    private var validatedAddresses: Set<TransportAddress> = []
    private var lastConsentNanos: UInt64

    public init(localCredentials: ICECredentials, remoteCredentials: ICECredentials?, configuration: Configuration = Configuration(), nowNanos: UInt64) {
        self.localCredentials = localCredentials
        self.remoteCredentials = remoteCredentials
        self.configuration = configuration
        lastConsentNanos = nowNanos
    }

    /// When the owner must tick next at the latest.
    public var nextDeadlineNanos: UInt64? {
        state == .expired ? nil : lastConsentNanos + configuration.consentTimeoutNanos
    }

    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .tick(let now):
            return checkConsent(now)
        case .datagram(let datagram, let source, let now):
            guard state != .expired else { return [] }
            return handleRequest(datagram, from: source, now: now) + checkConsent(now)
        }
    }

    private mutating func checkConsent(_ now: UInt64) -> [Action] {
        guard state != .expired, now >= lastConsentNanos + configuration.consentTimeoutNanos else { return [] }
        state = .expired
        return [.consentExpired]
    }

    private mutating func handleRequest(_ datagram: ByteBuffer, from source: TransportAddress, now: UInt64) -> [Action] {
        let request: STUNMessage
        do {
            var copy = datagram
            request = try STUNMessage(from: &copy)
            try STUNMessage.checkFingerprint(of: datagram)
        } catch {
            return [.dropped(error)]
        }
        guard request.type == .bindingRequest else {
            // Binding indications are keepalives (RFC 8445 §11); anything else is not for us.
            return request.type == .bindingIndication ? [] : [.dropped(.notSTUN(reason: "unexpected message type \(request.type)"))]
        }
        guard let username = request.username, request.first({ if case .messageIntegrity = $0 { true } else { nil } }) != nil else {
            return reject(request, from: source, .badRequest, reason: "check without USERNAME or MESSAGE-INTEGRITY")
        }
        let prefix = localCredentials.ufrag + ":"
        let remoteMatches = remoteCredentials.map { username == prefix + $0.ufrag } ?? username.hasPrefix(prefix)
        guard remoteMatches else {
            return reject(request, from: source, .unauthorized, reason: "USERNAME \(username.prefix(64)) is not ours")
        }
        do {
            try STUNMessage.checkIntegrity(of: datagram, key: Array(localCredentials.pwd.utf8))
        } catch {
            return reject(request, from: source, .unauthorized, reason: "MESSAGE-INTEGRITY does not match our password")
        }
        lastConsentNanos = now
        var actions = [Action]()
        let response = STUNMessage(type: .bindingSuccess, transactionID: request.transactionID, attributes: [.xorMappedAddress(source)])
        if let bytes = try? response.encoded(integrityKey: Array(localCredentials.pwd.utf8)) {
            actions.append(.send(bytes, to: source))
        }
        if validatedAddresses.insert(source).inserted {
            actions.append(.validated(source))
        }
        if request.hasUseCandidate, state != .connected(source) {
            state = .connected(source)
            actions.append(.selected(source))
        }
        return actions
    }

    /// An error response (RFC 8489 §6.3.1.1) without MESSAGE-INTEGRITY: the check did not prove it
    /// knows our password, so we cannot key one it could verify.
    private func reject(_ request: STUNMessage, from source: TransportAddress, _ error: STUNErrorCode, reason: String) -> [Action] {
        let response = STUNMessage(type: .bindingError, transactionID: request.transactionID, attributes: [.errorCode(error)])
        var actions: [Action] = [.dropped(.integrityCheckFailed(reason: reason))]
        if let bytes = try? response.encoded(integrityKey: nil) {
            actions.insert(.send(bytes, to: source), at: 0)
        }
        return actions
    }
}
