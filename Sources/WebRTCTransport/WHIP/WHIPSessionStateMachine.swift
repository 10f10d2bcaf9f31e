import Output

/// The WHIP publisher's session lifecycle (RFC 9725), without I/O: POST an offer, connect media,
/// keep it alive; when consent is lost try an ICE restart (PATCH), and when that is not supported
/// or the session is dead (DTLS closed, HTTP error, no connection) start a fresh session after an
/// exponential backoff with jitter. Errors that a retry cannot fix (a wrong token or URL) end it.
/// On stop, the session resource is deleted.
///
/// The owner performs the actions and reports their results as events. `Random` makes the jitter
/// reproducible in tests.
public struct WHIPSessionStateMachine<Random: RandomNumberGenerator & Sendable>: Sendable {
    public enum State: Sendable, Equatable {
        case idle, posting, connecting, connected, restarting, waiting, stopping, stopped, failed
    }

    public enum Event: Sendable {
        case start
        /// The POST (after any redirects) answered 201.
        case created(WHIPSessionResource)
        case postFailed(WHIPError)
        /// ICE and DTLS are up: media flows.
        case mediaConnected
        /// ICE failed or timed out, consent was lost, DTLS closed or failed.
        case mediaFailed(WHIPError)
        case restartAnswered(WHIPExchange.RestartOutcome)
        case restartFailed(WHIPError)
        case retryDue
        case stop
        /// The DELETE on stop completed (or failed: there is nothing more to do either way).
        case deleted
    }

    public enum Action: Sendable, Equatable {
        /// Open a new peer (sockets, credentials) and POST its offer.
        case post
        /// Apply the answer: ICE checks and DTLS toward the server.
        case connectMedia(WHIPSessionResource)
        /// New local credentials, PATCHed to the resource.
        case requestICERestart(WHIPSessionResource)
        /// The server's new credentials and candidates: restart checks.
        case restartMedia(WHIPICERestartFragment)
        /// Close the peer; DELETE the resource (best effort) when there is one.
        case discard(WHIPSessionResource?)
        case scheduleRetry(seconds: Double)
        /// Stop: DELETE the resource, then report ``Event/deleted``.
        case delete(WHIPSessionResource)
        /// Stopped (after the DELETE, if any).
        case finished
        case fail(WHIPError)
    }

    public private(set) var state: State = .idle
    public private(set) var resource: WHIPSessionResource?
    /// Sessions whose media connected; the ones after the first are reconnects.
    public private(set) var sessionsConnected = 0
    public private(set) var lastError: WHIPError?
    /// Failed attempts since media last connected (drives the backoff).
    private var attempt = 0
    /// Cleared after a 405/501 to PATCH: this server wants fresh sessions.
    private var restartSupported = true
    private let reconnect: ReconnectPolicy
    private var random: Random

    public init(reconnect: ReconnectPolicy, random: Random) {
        self.reconnect = reconnect
        self.random = random
    }

    public mutating func handle(_ event: Event) -> [Action] {
        switch (state, event) {
        case (_, .stop):
            return stop()
        case (.stopping, .deleted):
            state = .stopped
            return [.finished]
        case (.stopping, .created(let created)) where resource == nil:
            // Stopped while the POST was in flight: the server made a session; delete it.
            resource = created
            return [.delete(created)]
        case (.stopping, .postFailed) where resource == nil:
            state = .stopped
            return [.discard(nil), .finished]
        case (.stopping, _), (.stopped, _), (.failed, _):
            return []
        case (.idle, .start), (.waiting, .retryDue):
            state = .posting
            return [.post]
        case (.posting, .created(let created)):
            resource = created
            state = .connecting
            return [.connectMedia(created)]
        case (.posting, .postFailed(let error)):
            return retry(after: error, discarding: nil)
        case (.connecting, .mediaConnected), (.restarting, .mediaConnected):
            state = .connected
            attempt = 0
            sessionsConnected += 1
            return []
        case (.connected, .mediaFailed(.consentLost)) where restartSupported:
            guard let resource else { return retry(after: .consentLost, discarding: nil) }
            lastError = .consentLost
            state = .restarting
            return [.requestICERestart(resource)]
        case (.connecting, .mediaFailed(let error)), (.connected, .mediaFailed(let error)), (.restarting, .mediaFailed(let error)):
            return retry(after: error, discarding: resource)
        case (.restarting, .restartAnswered(.accepted(let fragment, let etag))):
            if let etag { resource?.etag = etag }
            state = .connecting
            return [.restartMedia(fragment)]
        case (.restarting, .restartAnswered(.notSupported)):
            restartSupported = false
            return retry(after: .consentLost, discarding: resource)
        case (.restarting, .restartFailed(let error)):
            // Whatever broke the PATCH (a garbled answer, a 4xx), a fresh session is the fallback:
            // only a POST's own refusal ends the output. A refused PATCH is not tried again.
            if !error.isRetryable { restartSupported = false }
            return retry(after: error, discarding: resource, mayGiveUp: false)
        default:
            // A late report from a session already given up (its timer or request raced the change).
            return []
        }
    }

    /// A dead session: drop it and try a fresh one after the backoff, unless retrying cannot help
    /// (`mayGiveUp`: the error came from the POST itself, which a retry would only repeat).
    private mutating func retry(after error: WHIPError, discarding old: WHIPSessionResource?, mayGiveUp: Bool = true) -> [Action] {
        lastError = error
        resource = nil
        var actions: [Action] = [.discard(old)]
        guard error.isRetryable || !mayGiveUp else {
            state = .failed
            return actions + [.fail(error)]
        }
        attempt += 1
        guard let delay = reconnect.delaySeconds(beforeAttempt: attempt, random: &random) else {
            state = .failed
            return actions + [.fail(error)]
        }
        state = .waiting
        actions.append(.scheduleRetry(seconds: delay))
        return actions
    }

    private mutating func stop() -> [Action] {
        switch state {
        case .stopping, .stopped: return []
        case .posting:
            // Wait for the POST (it has a timeout): a session it creates must be deleted.
            state = .stopping
            return [.discard(nil)]
        default: break
        }
        if let resource {
            state = .stopping
            return [.delete(resource)]
        }
        state = .stopped
        return [.discard(nil), .finished]
    }
}
