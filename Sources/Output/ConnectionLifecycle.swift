/// Why a sender's connection failed or ended: what the lifecycle needs to decide whether to retry,
/// and the short cause the delivery report counts reconnects by.
public protocol ConnectionError: Error, Sendable, Equatable {
    /// Whether trying again later can help (a refused key or application will be refused again).
    var isRetryable: Bool { get }
    /// A short, stable name for the delivery report's reconnect causes ("stalled", "closed by server").
    var cause: String { get }
}

/// One sender's connection lifecycle, without I/O: connect, go live, lose the connection, wait the
/// ``ReconnectPolicy``'s backoff, connect again — until stopped, or until retrying cannot help. A
/// server may ask the sender to move (RTMP's ReconnectRequest): a replacement connection opens
/// beside the live one and takes over when it is ready. A connection that can be repaired in place
/// (WebRTC's ICE restart after consent is lost) gets that chance first; a fresh connection is the
/// fallback.
///
/// The owner (an RTMP, SRT or WHIP sender) performs the actions — it opens and closes sockets, runs the
/// retry timer — and reports their outcome as events. The lifecycle has no clock and no socket:
/// delays come out as ``Action/scheduleRetry(seconds:attempt:)``, and `Random` makes the jitter reproducible
/// in tests.
///
///     idle ─start→ connecting ─connected→ live ─lost→ waiting ─retryDue→ connecting …
///                      └──────lost────────────────────────┘          (gives up → failed)
///     live ─interrupted→ repairing ─connected→ live      (repairFailed, lost → waiting)
///     connecting ─refusedKeyInUse→ waiting (same attempt, the short delay given)
///     any ─stop→ stopping ─closed→ stopped
public struct ConnectionLifecycle<Failure: ConnectionError, Random: RandomNumberGenerator & Sendable>: Sendable {
    public enum State: Sendable, Equatable {
        case idle
        /// Opening a connection; `attempt` counts the failed ones since the last live connection.
        case connecting(attempt: Int)
        /// The connection is up and taking media.
        case live
        /// The connection is gone; the server's replacement, already on its way, will take over.
        case awaitingReplacement
        /// The live connection broke and is being repaired in place (an ICE restart).
        case repairing
        /// Waiting the backoff before attempt `attempt`.
        case waiting(attempt: Int, delaySeconds: Double)
        case stopping
        case stopped
        /// Given up: the failure cannot be fixed by retrying, or the attempts are used up.
        case failed
    }

    public enum Event: Sendable {
        case start
        /// The connection is up and taking media (RTMP: the server said "publishing").
        case connected
        /// The connection ended, or never came up; nil when the server simply closed it.
        case lost(Failure?)
        /// The live connection broke in a way the owner can try to repair in place (WebRTC: ICE
        /// consent lost, an ICE restart may bring it back). Elsewhere it is ``lost(_:)``.
        case interrupted(Failure)
        /// The repair did not take (refused, garbled, not supported): a fresh connection follows
        /// whatever the failure, since the repair's refusal says nothing about a new connection.
        case repairFailed(Failure)
        /// A connect was refused because the key is in use, soon after a live connection of ours was
        /// lost (``KeyInUseRetry``): the server probably still holds that session, so try again after
        /// `retryAfterSeconds` without counting an attempt or growing the backoff. Outside a connect
        /// it is ``lost(_:)``.
        case refusedKeyInUse(Failure, retryAfterSeconds: Double)
        /// The connection ended, or never came up, and the owner moves to another ingest (a backup,
        /// ``IngestFailover``) that has not failed yet: connect there at once, the attempt not counted.
        /// Once every ingest has failed the owner reports ``lost(_:)`` and the backoff applies.
        case movedToOtherIngest(Failure?)
        /// The backoff of ``Action/scheduleRetry(seconds:attempt:)`` has passed.
        case retryDue
        /// The server asked the sender to move to another connection (RTMP ReconnectRequest).
        case moveRequested
        /// The replacement connection is up and ready to take over.
        case replacementReady
        /// The replacement never came up, or the move was refused (nil: nothing to report).
        case replacementLost(Failure?)
        /// The owner handed the stream over to the replacement; ``connected`` follows once it sends.
        case replaced
        case stop
        /// After a stop: every connection is closed (or the owner stopped waiting for them).
        case closed
    }

    public enum GiveUp: Sendable, Equatable {
        /// Retrying cannot help (a refused stream key).
        case notRetryable(Failure)
        /// ``ReconnectPolicy/maximumAttempts`` reconnects failed.
        case attemptsExhausted(Int)
    }

    public enum Action: Sendable, Equatable {
        /// Open the connection.
        case connect
        /// Repair the interrupted connection in place; ``Event/connected`` or a failure follows.
        case repair
        /// Open a replacement connection beside the live one.
        case connectReplacement
        /// Hand over to the ready replacement at the next clean point (a keyframe).
        case handOverAtNextKeyFrame
        /// Hand over to the ready replacement now: nothing else is sending.
        case handOverNow
        /// Wait `seconds`, then report ``Event/retryDue`` for attempt `attempt` (1 is the first retry).
        case scheduleRetry(seconds: Double, attempt: Int)
        case cancelRetry
        /// Stop: close what is open (gracefully where it can), then report ``Event/closed``.
        case close
        /// The output's state changed (`.connecting`, `.reconnecting`, `.running`).
        case report(OutputStatus.State)
        /// A connection failed; the output's last error.
        case recordError(Failure)
        /// A live connection was lost, counted by `cause` in the delivery report.
        case countLoss(cause: String)
        /// The output has failed (``State/failed``).
        case giveUp(GiveUp)
        /// Stopped.
        case finished
    }

    /// The cause counted when a live connection ends without an error.
    public static var closedByServer: String { "closed by server" }
    /// The cause counted when the stream moves to a replacement.
    public static var moved: String { "moved on the server's request" }

    public private(set) var state: State = .idle
    /// Connections that went live; the ones after the first are reconnects.
    public private(set) var connectionsLive = 0
    public var reconnects: Int { max(0, connectionsLive - 1) }
    /// A connection the server asked for, opened beside the live one.
    public enum Replacement: Sendable, Equatable {
        case opening
        /// Up, and ready to take over.
        case ready
    }

    /// The replacement on its way, if the server asked for one.
    public private(set) var replacement: Replacement?
    private let policy: ReconnectPolicy
    private var random: Random

    public init(policy: ReconnectPolicy, random: Random) {
        self.policy = policy
        self.random = random
    }

    public var isStopping: Bool { state == .stopping || state == .stopped }

    public mutating func handle(_ event: Event) -> [Action] {
        switch (state, event) {
        case (.stopping, .closed):
            state = .stopped
            return [.finished]
        case (.stopping, _), (.stopped, _):
            return []
        case (_, .stop):
            return stop()
        case (.idle, .start):
            state = .connecting(attempt: 0)
            return [.connect, .report(.connecting)]
        case (.waiting(let attempt, _), .retryDue):
            state = .connecting(attempt: attempt)
            return [.connect, .report(.reconnecting)]
        case (.connecting, .connected), (.repairing, .connected):
            state = .live
            connectionsLive += 1
            return [.report(.running)]
        case (.live, .interrupted(let failure)) where replacement == nil:
            state = .repairing
            return [.countLoss(cause: failure.cause), .recordError(failure), .report(.reconnecting), .repair]
        case (.repairing, .lost(let failure)):
            return (failure.map { [.recordError($0)] } ?? []) + retry(after: failure)
        case (.repairing, .repairFailed(let failure)):
            return [.recordError(failure)] + retry(after: failure, giveUpIfNotRetryable: false)
        case (.connecting(let failed), .refusedKeyInUse(let failure, let seconds)) where replacement == nil:
            state = .waiting(attempt: failed, delaySeconds: seconds)
            return [.recordError(failure), .report(.reconnecting), .scheduleRetry(seconds: seconds, attempt: failed)]
        case (_, .refusedKeyInUse(let failure, _)):
            return handle(.lost(failure))
        case (.connecting, .interrupted(let failure)), (.live, .interrupted(let failure)), (.repairing, .interrupted(let failure)):
            return handle(.lost(failure))
        case (.connecting, .lost(let failure)), (.live, .lost(let failure)):
            var actions: [Action] = state == .live ? [.countLoss(cause: failure?.cause ?? Self.closedByServer)] : []
            actions += failure.map { [.recordError($0)] } ?? []
            if let replacement {
                state = .awaitingReplacement
                return actions + (replacement == .ready ? [.handOverNow] : [])
            }
            return actions + retry(after: failure)
        case (.live, .movedToOtherIngest(let failure)) where replacement == nil:
            return moveToOtherIngest(after: failure, attempt: 0, countsLoss: true)
        case (.connecting(let failed), .movedToOtherIngest(let failure)) where replacement == nil:
            return moveToOtherIngest(after: failure, attempt: failed, countsLoss: false)
        case (_, .movedToOtherIngest(let failure)):
            return handle(.lost(failure))
        case (.connecting, .moveRequested), (.live, .moveRequested):
            guard replacement == nil else { return [] }
            replacement = .opening
            return [.connectReplacement]
        case (_, .replacementReady) where replacement == .opening:
            replacement = .ready
            return state == .awaitingReplacement ? [.handOverNow] : [.handOverAtNextKeyFrame]
        case (_, .replacementLost(let failure)) where replacement != nil:
            replacement = nil
            let actions: [Action] = failure.map { [.recordError($0)] } ?? []
            return state == .awaitingReplacement ? actions + retry(after: failure) : actions
        case (_, .replaced) where replacement == .ready:
            replacement = nil
            let wasLive = state == .live
            state = .connecting(attempt: 0)
            return wasLive ? [.countLoss(cause: Self.moved)] : []
        default:
            // A late report (a timer or a connection that raced a change), or one that does not apply.
            return []
        }
    }

    /// The connection is gone and another ingest is next: connect there now, the attempt not counted.
    private mutating func moveToOtherIngest(after failure: Failure?, attempt: Int, countsLoss: Bool) -> [Action] {
        var actions: [Action] = countsLoss ? [.countLoss(cause: failure?.cause ?? Self.closedByServer)] : []
        actions += failure.map { [.recordError($0)] } ?? []
        state = .waiting(attempt: attempt, delaySeconds: 0)
        return actions + [.report(.reconnecting), .scheduleRetry(seconds: 0, attempt: attempt)]
    }

    /// The connection is gone: try again after the backoff, unless retrying cannot help.
    private mutating func retry(after failure: Failure?, giveUpIfNotRetryable: Bool = true) -> [Action] {
        if let failure, !failure.isRetryable, giveUpIfNotRetryable {
            state = .failed
            return [.giveUp(.notRetryable(failure))]
        }
        let attempt: Int
        switch state {
        case .connecting(let failed): attempt = failed + 1
        default: attempt = 1
        }
        guard let delay = policy.delaySeconds(beforeAttempt: attempt, random: &random) else {
            state = .failed
            return [.giveUp(.attemptsExhausted(attempt - 1))]
        }
        state = .waiting(attempt: attempt, delaySeconds: delay)
        return [.report(.reconnecting), .scheduleRetry(seconds: delay, attempt: attempt)]
    }

    private mutating func stop() -> [Action] {
        let waiting = if case .waiting = state { true } else { false }
        state = .stopping
        replacement = nil
        return waiting ? [.cancelRetry, .close] : [.close]
    }
}
