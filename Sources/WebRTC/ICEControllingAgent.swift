import NIOCore

/// The WHIP client's full ICE agent in the controlling role (RFC 8445 §6–§8) for one component
/// on host candidates: it pairs local and remote candidates, sends paced Binding checks with
/// retransmissions, nominates with USE-CANDIDATE (aggressive: on every check; regular: once a
/// check succeeded), answers the peer's checks, and after connecting keeps consent alive
/// (RFC 7675: a check every ~5 s, randomized; lost after 30 s without a response).
///
/// Events carry the time; the owner ticks it by ``nextDeadlineNanos`` and performs the actions.
/// `Random` makes transaction ids and consent jitter reproducible in tests.
public struct ICEControllingAgent<Random: RandomNumberGenerator & Sendable>: Sendable {
    public enum Nomination: Sendable, Hashable { case aggressive, regular }

    public struct Configuration: Sendable, Hashable {
        /// Ta, between two new checks (RFC 8445 §14.2: 50 ms).
        public var pacingNanos: UInt64 = 50_000_000
        /// First retransmission timeout, doubled each time (RFC 8489 §6.2.1).
        public var initialRTONanos: UInt64 = 250_000_000
        /// Rc: transmissions of one check before its pair fails (RFC 8489 §6.2.1: 7).
        public var maximumTransmissions = 7
        public var nomination: Nomination = .regular
        public var consentIntervalNanos: UInt64 = 5_000_000_000
        public var consentTimeoutNanos: UInt64 = 30_000_000_000

        public init() {}
    }

    public enum Event: Sendable {
        /// Checks start; also after ``restart(local:remote:remoteCandidates:)``.
        case start(nowNanos: UInt64)
        case datagram(ByteBuffer, from: TransportAddress, to: TransportAddress, nowNanos: UInt64)
        case tick(nowNanos: UInt64)
    }

    public enum Action: Sendable, Equatable {
        case send(ByteBuffer, from: TransportAddress, to: TransportAddress)
        case connected(ICECandidatePair)
        /// Every pair failed: no path (time for an ICE restart or a new session).
        case failed
        /// The selected path stopped answering consent checks (RFC 7675 §5.1).
        case consentLost
        case dropped(WebRTCError)
    }

    public enum State: Sendable, Equatable {
        case idle, checking, connected(ICECandidatePair), failed, consentLost
    }

    private enum PairState: Equatable { case waiting, inProgress, succeeded, failed }

    private struct Transaction {
        var pairIndex: Int
        var bytes: ByteBuffer
        var transmissions: Int
        var rtoNanos: UInt64
        var nextSendNanos: UInt64
        var nominating: Bool
        var isConsent: Bool
    }

    public let configuration: Configuration
    public let tieBreaker: UInt64
    public private(set) var localCredentials: ICECredentials
    public private(set) var remoteCredentials: ICECredentials
    public private(set) var state: State = .idle
    private var localCandidates: [ICECandidate]
    private var pairs: [ICECandidatePair] = []
    private var pairStates: [PairState] = []
    private var triggered: [Int] = []
    private var nominationPending: Int?
    private var transactions: [STUNTransactionID: Transaction] = [:]
    private var nextCheckNanos: UInt64 = 0
    private var nextConsentNanos: UInt64 = 0
    private var lastConsentNanos: UInt64 = 0
    private var random: Random

    public init(local: ICECredentials, localCandidates: [ICECandidate], remote: ICECredentials, remoteCandidates: [ICECandidate],
                configuration: Configuration = Configuration(), random: Random) {
        self.configuration = configuration
        self.random = random
        tieBreaker = UInt64.random(in: .min ... .max, using: &self.random)
        localCredentials = local
        remoteCredentials = remote
        self.localCandidates = localCandidates
        formPairs(remoteCandidates)
    }

    /// ICE restart (RFC 8445 §9): new credentials on both sides, fresh pairs; send `.start` next.
    public mutating func restart(local: ICECredentials, remote: ICECredentials, remoteCandidates: [ICECandidate]) {
        localCredentials = local
        remoteCredentials = remote
        transactions = [:]
        triggered = []
        nominationPending = nil
        state = .idle
        formPairs(remoteCandidates)
    }

    /// A trickled remote candidate (RFC 8838).
    public mutating func add(remoteCandidate: ICECandidate) {
        guard let remote = remoteCandidate.transportAddress else { return }
        addPairs(remote: remote, priority: remoteCandidate.priority)
    }

    public var nextDeadlineNanos: UInt64? {
        let retransmit = transactions.values.map(\.nextSendNanos).min()
        switch state {
        case .checking:
            let hasCheckToSend = nominationPending != nil || !triggered.isEmpty || pairStates.contains(.waiting)
            return [retransmit, hasCheckToSend ? nextCheckNanos : nil].compactMap { $0 }.min()
        case .connected: return [retransmit, nextConsentNanos, lastConsentNanos + configuration.consentTimeoutNanos].compactMap { $0 }.min()
        case .idle, .failed, .consentLost: return nil
        }
    }

    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .start(let now):
            state = .checking
            nextCheckNanos = now
            return tick(now)
        case .tick(let now):
            return tick(now)
        case .datagram(let datagram, let source, let destination, let now):
            return receive(datagram, from: source, to: destination, now: now) + tick(now)
        }
    }

    // MARK: Pairs

    private mutating func formPairs(_ remoteCandidates: [ICECandidate]) {
        pairs = []
        pairStates = []
        for candidate in remoteCandidates {
            add(remoteCandidate: candidate)
        }
    }

    @discardableResult
    private mutating func addPairs(remote: TransportAddress, priority remotePriority: UInt32) -> [Int] {
        var added: [Int] = []
        for local in localCandidates {
            guard let base = local.transportAddress, base.ip.isIPv4 == remote.ip.isIPv4 else { continue }
            if let existing = pairs.firstIndex(where: { $0.local == base && $0.remote == remote }) {
                added.append(existing)
                continue
            }
            pairs.append(ICECandidatePair(local: base, remote: remote,
                                          priority: ICECandidatePair.priority(controlling: local.priority, controlled: remotePriority)))
            pairStates.append(.waiting)
            added.append(pairs.count - 1)
        }
        return added
    }

    /// The PRIORITY a check carries: what a peer-reflexive candidate learned from it would get.
    private func checkPriority(for local: TransportAddress) -> UInt32 {
        let preference = localCandidates.first { $0.transportAddress == local }.map { UInt16(truncatingIfNeeded: $0.priority >> 8) } ?? 65535
        return ICECandidate.priority(kind: .prflx, localPreference: preference, component: 1)
    }

    // MARK: Timers

    private mutating func tick(_ now: UInt64) -> [Action] {
        var actions = retransmit(now)
        switch state {
        case .checking:
            if now >= nextCheckNanos {
                if let index = nextPairToCheck() {
                    actions += sendCheck(on: index, nominating: configuration.nomination == .aggressive || index == nominationPending,
                                         isConsent: false, now: now)
                }
                nextCheckNanos = now + configuration.pacingNanos
            }
            if pairStates.allSatisfy({ $0 == .failed }), transactions.isEmpty {
                state = .failed
                actions.append(.failed)
            }
        case .connected(let pair):
            if now >= lastConsentNanos + configuration.consentTimeoutNanos {
                state = .consentLost
                transactions = [:]
                return actions + [.consentLost]
            }
            if now >= nextConsentNanos, let index = pairs.firstIndex(of: pair) {
                actions += sendCheck(on: index, nominating: false, isConsent: true, now: now)
                // RFC 7675 §5.1: uniformly within 0.8–1.2 of the interval, so peers do not synchronize.
                let jitter = Double.random(in: 0.8...1.2, using: &random)
                nextConsentNanos = now + UInt64(Double(configuration.consentIntervalNanos) * jitter)
            }
        case .idle, .failed, .consentLost:
            break
        }
        return actions
    }

    /// A pending nomination first, then triggered checks, then the best waiting pair.
    private mutating func nextPairToCheck() -> Int? {
        if let index = nominationPending, !transactions.values.contains(where: { $0.pairIndex == index && $0.nominating }) {
            return index
        }
        while let index = triggered.first {
            triggered.removeFirst()
            if pairStates[index] != .inProgress { return index }
        }
        return pairStates.indices.filter { pairStates[$0] == .waiting }.max { pairs[$0].priority < pairs[$1].priority }
    }

    private mutating func retransmit(_ now: UInt64) -> [Action] {
        var actions: [Action] = []
        for (id, transaction) in transactions where now >= transaction.nextSendNanos {
            guard transaction.transmissions < configuration.maximumTransmissions else {
                transactions[id] = nil
                if !transaction.isConsent {
                    pairStates[transaction.pairIndex] = .failed
                    if nominationPending == transaction.pairIndex { nominationPending = nil }
                }
                continue
            }
            var next = transaction
            next.transmissions += 1
            next.rtoNanos *= 2
            next.nextSendNanos = now + next.rtoNanos
            transactions[id] = next
            let pair = pairs[transaction.pairIndex]
            actions.append(.send(transaction.bytes, from: pair.local, to: pair.remote))
        }
        return actions
    }

    private mutating func sendCheck(on index: Int, nominating: Bool, isConsent: Bool, now: UInt64) -> [Action] {
        let pair = pairs[index]
        let id = STUNTransactionID.random(using: &random)
        var attributes: [STUNAttribute] = [
            .username(ICECredentials.username(receiver: remoteCredentials, sender: localCredentials)),
            .priority(checkPriority(for: pair.local)),
            .iceControlling(tieBreaker),
        ]
        if nominating { attributes.append(.useCandidate) }
        let request = STUNMessage(type: .bindingRequest, transactionID: id, attributes: attributes)
        guard let bytes = try? request.encoded(integrityKey: Array(remoteCredentials.pwd.utf8)) else {
            return [.dropped(.valueOutOfRange(field: "USERNAME bytes", value: remoteCredentials.ufrag.utf8.count))]
        }
        if !isConsent { pairStates[index] = .inProgress }
        transactions[id] = Transaction(pairIndex: index, bytes: bytes, transmissions: 1, rtoNanos: configuration.initialRTONanos,
                                       nextSendNanos: now + configuration.initialRTONanos, nominating: nominating, isConsent: isConsent)
        return [.send(bytes, from: pair.local, to: pair.remote)]
    }

    // MARK: Received datagrams

    private mutating func receive(_ datagram: ByteBuffer, from source: TransportAddress, to destination: TransportAddress, now: UInt64) -> [Action] {
        let message: STUNMessage
        do {
            var copy = datagram
            message = try STUNMessage(from: &copy)
            try STUNMessage.checkFingerprint(of: datagram)
        } catch {
            return [.dropped(error)]
        }
        switch message.type.class {
        case .request where message.type.method == STUNMessageType.bindingMethod:
            return answerCheck(message, datagram, from: source, to: destination)
        case .successResponse, .errorResponse:
            return handleResponse(message, datagram, from: source, to: destination, now: now)
        default:
            return []
        }
    }

    private mutating func handleResponse(_ response: STUNMessage, _ datagram: ByteBuffer, from source: TransportAddress,
                                         to destination: TransportAddress, now: UInt64) -> [Action] {
        guard let transaction = transactions[response.transactionID] else {
            return [.dropped(.notSTUN(reason: "response to no transaction of ours"))]
        }
        do {
            try STUNMessage.checkIntegrity(of: datagram, key: Array(remoteCredentials.pwd.utf8))
        } catch {
            return [.dropped(error)]
        }
        transactions[response.transactionID] = nil
        let index = transaction.pairIndex
        let pair = pairs[index]
        // RFC 8445 §7.2.5.2.1: a response from elsewhere means the path is not symmetric.
        guard response.type.class == .successResponse, source == pair.remote, destination == pair.local else {
            if !transaction.isConsent { pairStates[index] = .failed }
            return [.dropped(.checkFailed(remote: pair.remote, errorCode: response.errorCode?.code))]
        }
        if transaction.isConsent {
            lastConsentNanos = now
            return []
        }
        pairStates[index] = .succeeded
        guard state == .checking else { return [] }
        if transaction.nominating {
            state = .connected(pair)
            lastConsentNanos = now
            nextConsentNanos = now + configuration.consentIntervalNanos
            transactions = transactions.filter { $0.value.isConsent }
            return [.connected(pair)]
        }
        if configuration.nomination == .regular, nominationPending == nil {
            nominationPending = index
            nextCheckNanos = min(nextCheckNanos, now)
        }
        return []
    }

    /// The peer's own checks (full agents send them too): answer, learn peer-reflexive remotes,
    /// and trigger a check back (RFC 8445 §7.3.1.4). We stay controlling: a peer that claims the
    /// controlling role gets 487 (RFC 8445 §7.3.1.1; switching roles is not implemented).
    private mutating func answerCheck(_ request: STUNMessage, _ datagram: ByteBuffer, from source: TransportAddress,
                                      to destination: TransportAddress) -> [Action] {
        guard request.username == ICECredentials.username(receiver: localCredentials, sender: remoteCredentials) else {
            return [.dropped(.integrityCheckFailed(reason: "check with USERNAME \(request.username?.prefix(64) ?? "none")"))]
        }
        do {
            try STUNMessage.checkIntegrity(of: datagram, key: Array(localCredentials.pwd.utf8))
        } catch {
            return [.dropped(error)]
        }
        let claimsControlling = request.first { if case .iceControlling = $0 { true } else { nil } } != nil
        let response = claimsControlling
            ? STUNMessage(type: .bindingError, transactionID: request.transactionID, attributes: [.errorCode(.roleConflict)])
            : STUNMessage(type: .bindingSuccess, transactionID: request.transactionID, attributes: [.xorMappedAddress(source)])
        guard let bytes = try? response.encoded(integrityKey: Array(localCredentials.pwd.utf8)) else { return [] }
        if !claimsControlling, state == .checking {
            for index in addPairs(remote: source, priority: request.priority ?? 0) where pairs[index].local == destination && pairStates[index] != .succeeded {
                pairStates[index] = .waiting
                triggered.append(index)
            }
        }
        return [.send(bytes, from: destination, to: source)]
    }
}
