import Output

/// A WHIP publisher's session (RFC 9725) on the shared ``ConnectionLifecycle``: the lifecycle
/// decides when to connect, retry (its backoff), give up and stop, as it does for RTMP and SRT;
/// this adds what only WHIP has — the session resource the POST creates (PATCHed for an ICE
/// restart, DELETEd when the session is dropped or the output stops) and whether the server does
/// ICE restarts. No I/O: the owner performs the actions and reports their results as events.
///
/// A lost consent is an interruption the lifecycle lets the session repair in place (an ICE
/// restart); a server that answers the PATCH with 405/501, or refuses it, gets fresh sessions from
/// then on. A POST's own refusal (a wrong token or URL) ends the output. A stop during the POST
/// waits for it, so a session it creates is deleted.
public struct WHIPSession<Random: RandomNumberGenerator & Sendable>: Sendable {
    public typealias Lifecycle = ConnectionLifecycle<WHIPError, Random>

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

    public private(set) var lifecycle: Lifecycle
    /// The session the last POST created, until it is dropped.
    public private(set) var resource: WHIPSessionResource?
    public private(set) var lastError: WHIPError?
    /// Cleared after a 405/501 or a refusal to PATCH: this server wants fresh sessions.
    private var restartSupported = true

    public init(reconnect: ReconnectPolicy, random: Random) {
        lifecycle = Lifecycle(policy: reconnect, random: random)
    }

    public var state: Lifecycle.State { lifecycle.state }
    /// Sessions whose media connected (an ICE restart's too); the ones after the first are reconnects.
    public var sessionsConnected: Int { lifecycle.connectionsLive }
    /// The POST is in flight: no resource yet, and the owner must wait for its answer.
    private var isPosting: Bool {
        if case .connecting = state { resource == nil } else { false }
    }

    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .start:
            return run(.start)
        case .retryDue:
            return run(.retryDue)
        case .stop:
            let posting = isPosting
            return run(.stop, postInFlight: posting)
        case .created(let created):
            if state == .stopping && resource == nil {
                // Stopped while the POST was in flight: the server made a session; delete it.
                resource = created
                return [.delete(created)]
            }
            guard isPosting else { return [] }
            resource = created
            return [.connectMedia(created)]
        case .postFailed(let error):
            if state == .stopping && resource == nil { return [.discard(nil)] + run(.closed) }
            return isPosting ? run(.lost(error)) : []
        case .mediaConnected:
            return resource == nil ? [] : run(.connected)
        case .mediaFailed(let error):
            guard resource != nil else { return [] }
            return run(error == .consentLost && restartSupported ? .interrupted(error) : .lost(error))
        case .restartAnswered(let outcome):
            guard state == .repairing else { return [] }
            switch outcome {
            case .accepted(let fragment, let etag):
                if let etag { resource?.etag = etag }
                return [.restartMedia(fragment)]
            case .notSupported:
                restartSupported = false
                return run(.repairFailed(.consentLost))
            }
        case .restartFailed(let error):
            guard state == .repairing else { return [] }
            // Whatever broke the PATCH (a garbled answer, a 4xx), a fresh session is the fallback;
            // a refused PATCH is not tried again.
            if !error.isRetryable { restartSupported = false }
            return run(.repairFailed(error))
        case .deleted:
            return state == .stopping ? run(.closed) : []
        }
    }

    /// The lifecycle's decision, as WHIP requests.
    private mutating func run(_ event: Lifecycle.Event, postInFlight: Bool = false) -> [Action] {
        var actions: [Action] = []
        for action in lifecycle.handle(event) {
            switch action {
            case .connect:
                actions.append(.post)
            case .repair:
                if let resource { actions.append(.requestICERestart(resource)) }
            case .recordError(let error):
                lastError = error
            case .scheduleRetry(let seconds, _):
                actions += [dropSession(), .scheduleRetry(seconds: seconds)]
            case .giveUp:
                actions.append(dropSession())
                if let lastError { actions.append(.fail(lastError)) }
            case .close:
                actions += close(postInFlight: postInFlight)
            case .finished:
                actions.append(.finished)
            case .report, .countLoss, .cancelRetry, .connectReplacement, .handOverAtNextKeyFrame, .handOverNow:
                // The owner reads the state and counts losses from it; the retry timer goes with
                // `.finished`, and WHIP servers do not ask to move.
                break
            }
        }
        return actions
    }

    private mutating func dropSession() -> Action {
        defer { resource = nil }
        return .discard(resource)
    }

    /// Stop: DELETE the session, or wait for the POST that may create one, or finish now.
    private mutating func close(postInFlight: Bool) -> [Action] {
        if let resource { return [.delete(resource)] }
        if postInFlight { return [.discard(nil)] }
        return [.discard(nil)] + run(.closed)
    }
}
