import Output
import Testing
import TestSupport

/// The connection lifecycle as a pure value: events in, actions out, no socket and no clock.
@Suite struct ConnectionLifecycleTests {
    enum Failure: ConnectionError {
        case refused, stalled, unreachable

        var isRetryable: Bool { self != .refused }
        var cause: String {
            switch self {
            case .refused: "refused"
            case .stalled: "stalled"
            case .unreachable: "connection failed"
            }
        }
    }

    typealias Lifecycle = ConnectionLifecycle<Failure, SplitMix64>

    static func live(policy: ReconnectPolicy = ReconnectPolicy(), seed: UInt64 = 7) -> Lifecycle {
        var lifecycle = Lifecycle(policy: policy, random: SplitMix64(seed: seed))
        _ = lifecycle.handle(.start)
        _ = lifecycle.handle(.connected)
        return lifecycle
    }

    @Test func startConnectsAndGoesLive() {
        var lifecycle = Lifecycle(policy: ReconnectPolicy(), random: SplitMix64(seed: 1))
        #expect(lifecycle.state == .idle)
        #expect(lifecycle.handle(.start) == [.connect, .report(.connecting)])
        #expect(lifecycle.state == .connecting(attempt: 0))
        #expect(lifecycle.handle(.connected) == [.report(.running)])
        #expect(lifecycle.state == .live)
        #expect(lifecycle.connectionsLive == 1 && lifecycle.reconnects == 0)
        #expect(lifecycle.handle(.start).isEmpty, "a second start changes nothing")
    }

    /// Each failed connect waits the policy's next delay (the same jitter, from the same seed), and
    /// the attempt count starts again once a connection goes live.
    @Test func failedConnectsRetryWithThePolicysDelays() throws {
        let policy = ReconnectPolicy(initialDelaySeconds: 1, maximumDelaySeconds: 8)
        var lifecycle = Lifecycle(policy: policy, random: SplitMix64(seed: 42))
        var reference = SplitMix64(seed: 42)
        _ = lifecycle.handle(.start)
        for attempt in 1...6 {
            let delay = try #require(policy.delaySeconds(beforeAttempt: attempt, random: &reference))
            #expect(lifecycle.handle(.lost(.unreachable)) == [.recordError(.unreachable), .report(.reconnecting), .scheduleRetry(seconds: delay, attempt: attempt)])
            #expect(lifecycle.state == .waiting(attempt: attempt, delaySeconds: delay))
            #expect(lifecycle.handle(.retryDue) == [.connect, .report(.reconnecting)])
            #expect(lifecycle.state == .connecting(attempt: attempt))
        }
        _ = lifecycle.handle(.connected)
        let first = try #require(policy.delaySeconds(beforeAttempt: 1, random: &reference))
        #expect(lifecycle.handle(.lost(.stalled)).last == .scheduleRetry(seconds: first, attempt: 1))
        #expect(lifecycle.state == .waiting(attempt: 1, delaySeconds: first))
    }

    @Test func givesUpAfterTheMaximumAttempts() {
        var lifecycle = Self.live(policy: ReconnectPolicy(maximumAttempts: 2))
        for attempt in 1...2 {
            #expect(lifecycle.handle(.lost(.unreachable)).contains(.report(.reconnecting)), "attempt \(attempt)")
            _ = lifecycle.handle(.retryDue)
        }
        #expect(lifecycle.handle(.lost(.unreachable)) == [.recordError(.unreachable), .giveUp(.attemptsExhausted(2))])
        #expect(lifecycle.state == .failed)
        #expect(lifecycle.handle(.retryDue).isEmpty && lifecycle.handle(.connected).isEmpty, "a failed output stays failed")
        #expect(lifecycle.handle(.stop) == [.close], "stopping a failed output still closes it")
    }

    @Test func aFailureRetryingCannotFixGivesUpAtOnce() {
        var lifecycle = Lifecycle(policy: ReconnectPolicy(), random: SplitMix64(seed: 3))
        _ = lifecycle.handle(.start)
        #expect(lifecycle.handle(.lost(.refused)) == [.recordError(.refused), .giveUp(.notRetryable(.refused))])
        #expect(lifecycle.state == .failed)
    }

    /// A stall (or any loss of a live connection) is counted by its cause, then reconnected; the
    /// next live connection is a reconnect.
    @Test func aLiveConnectionLostIsCountedByCauseAndReconnected() {
        var lifecycle = Self.live()
        let actions = lifecycle.handle(.lost(.stalled))
        #expect(Array(actions.prefix(3)) == [.countLoss(cause: "stalled"), .recordError(.stalled), .report(.reconnecting)])
        _ = lifecycle.handle(.retryDue)
        #expect(lifecycle.handle(.connected) == [.report(.running)])
        #expect(lifecycle.reconnects == 1)
        let closed = lifecycle.handle(.lost(nil))
        #expect(closed.first == .countLoss(cause: Lifecycle.closedByServer), "a close without an error is the server's")
        #expect(!closed.contains { if case .recordError = $0 { true } else { false } }, "and records no error")
    }

    @Test func aConnectThatFailsIsNotCountedAsALoss() {
        var lifecycle = Lifecycle(policy: ReconnectPolicy(), random: SplitMix64(seed: 5))
        _ = lifecycle.handle(.start)
        #expect(!lifecycle.handle(.lost(nil)).contains { if case .countLoss = $0 { true } else { false } })
    }

    @Test func stopWhileConnectingWaitsForTheConnectionToClose() {
        var lifecycle = Lifecycle(policy: ReconnectPolicy(), random: SplitMix64(seed: 1))
        _ = lifecycle.handle(.start)
        #expect(lifecycle.handle(.stop) == [.close])
        #expect(lifecycle.isStopping)
        #expect(lifecycle.handle(.connected).isEmpty && lifecycle.handle(.lost(.unreachable)).isEmpty, "no reconnect after a stop")
        #expect(lifecycle.handle(.stop).isEmpty, "a second stop changes nothing")
        #expect(lifecycle.handle(.closed) == [.finished])
        #expect(lifecycle.state == .stopped)
        #expect(lifecycle.handle(.closed).isEmpty && lifecycle.handle(.start).isEmpty)
    }

    @Test func stopWhileWaitingCancelsTheRetry() {
        var lifecycle = Self.live()
        _ = lifecycle.handle(.lost(.stalled))
        #expect(lifecycle.handle(.stop) == [.cancelRetry, .close])
        #expect(lifecycle.handle(.retryDue).isEmpty, "a timer that raced the stop connects nothing")
        #expect(lifecycle.handle(.closed) == [.finished])
    }

    @Test func stopBeforeStartFinishesOnceClosed() {
        var lifecycle = Lifecycle(policy: ReconnectPolicy(), random: SplitMix64(seed: 1))
        #expect(lifecycle.handle(.stop) == [.close])
        #expect(lifecycle.handle(.closed) == [.finished])
    }

    /// A server's move request: a replacement opens beside the live connection and takes over at a
    /// keyframe; the move is counted, and the replacement going live is a reconnect.
    @Test func aMoveHandsOverAtTheNextKeyFrame() {
        var lifecycle = Self.live()
        #expect(lifecycle.handle(.moveRequested) == [.connectReplacement])
        #expect(lifecycle.handle(.moveRequested).isEmpty, "one move at a time")
        #expect(lifecycle.handle(.replacementReady) == [.handOverAtNextKeyFrame])
        #expect(lifecycle.state == .live)
        #expect(lifecycle.handle(.replaced) == [.countLoss(cause: Lifecycle.moved)])
        #expect(lifecycle.handle(.connected) == [.report(.running)])
        #expect(lifecycle.reconnects == 1 && lifecycle.replacement == nil)
    }

    @Test func aConnectionLostDuringAMoveWaitsForTheReplacement() {
        var lifecycle = Self.live()
        _ = lifecycle.handle(.moveRequested)
        #expect(lifecycle.handle(.lost(nil)) == [.countLoss(cause: Lifecycle.closedByServer)])
        #expect(lifecycle.state == .awaitingReplacement)
        #expect(lifecycle.handle(.replacementReady) == [.handOverNow])
        #expect(lifecycle.handle(.replaced).isEmpty, "the loss was counted already")
        #expect(lifecycle.handle(.connected) == [.report(.running)])
    }

    @Test func aReadyReplacementTakesOverAtOnceWhenTheConnectionIsLost() {
        var lifecycle = Self.live()
        _ = lifecycle.handle(.moveRequested)
        _ = lifecycle.handle(.replacementReady)
        #expect(lifecycle.handle(.lost(.stalled)) == [.countLoss(cause: "stalled"), .recordError(.stalled), .handOverNow])
    }

    @Test func aRefusedOrFailedMoveKeepsTheLiveConnection() {
        var lifecycle = Self.live()
        _ = lifecycle.handle(.moveRequested)
        #expect(lifecycle.handle(.replacementLost(nil)).isEmpty)
        #expect(lifecycle.state == .live)
        _ = lifecycle.handle(.moveRequested)
        #expect(lifecycle.handle(.replacementLost(.unreachable)) == [.recordError(.unreachable)])
        #expect(lifecycle.state == .live && lifecycle.replacement == nil)
        #expect(lifecycle.handle(.moveRequested) == [.connectReplacement], "the server may ask again")
    }

    @Test func aReplacementThatFailsAfterTheConnectionWasLostReconnects() {
        var lifecycle = Self.live()
        _ = lifecycle.handle(.moveRequested)
        _ = lifecycle.handle(.lost(nil))
        let actions = lifecycle.handle(.replacementLost(.unreachable))
        #expect(Array(actions.prefix(2)) == [.recordError(.unreachable), .report(.reconnecting)])
        guard case .waiting(attempt: 1, _) = lifecycle.state else {
            Issue.record("expected to wait before attempt 1, not \(lifecycle.state)")
            return
        }
        var refused = Self.live()
        _ = refused.handle(.moveRequested)
        _ = refused.handle(.lost(nil))
        #expect(refused.handle(.replacementLost(.refused)) == [.recordError(.refused), .giveUp(.notRetryable(.refused))])
    }

    @Test func noAttemptsAllowedGivesUpAtTheFirstLoss() {
        var lifecycle = Self.live(policy: ReconnectPolicy(maximumAttempts: 0))
        #expect(lifecycle.handle(.lost(nil)) == [.countLoss(cause: Lifecycle.closedByServer), .giveUp(.attemptsExhausted(0))])
        #expect(lifecycle.state == .failed)
    }

    @Test func stopDuringAMoveDropsTheReplacement() {
        var lifecycle = Self.live()
        _ = lifecycle.handle(.moveRequested)
        _ = lifecycle.handle(.lost(nil))
        #expect(lifecycle.handle(.stop) == [.close])
        #expect(lifecycle.replacement == nil)
        #expect(lifecycle.handle(.replacementReady).isEmpty && lifecycle.handle(.replaced).isEmpty, "no hand-over after a stop")
        #expect(lifecycle.handle(.closed) == [.finished])
    }

    /// A move asked for before the connection went live: the connection may still go live, and the
    /// replacement takes over from it as from any live one.
    @Test func aMoveRequestedWhileConnectingOpensTheReplacement() {
        var lifecycle = Lifecycle(policy: ReconnectPolicy(), random: SplitMix64(seed: 9))
        _ = lifecycle.handle(.start)
        #expect(lifecycle.handle(.moveRequested) == [.connectReplacement])
        _ = lifecycle.handle(.connected)
        #expect(lifecycle.replacement == .opening)
        #expect(lifecycle.handle(.replacementReady) == [.handOverAtNextKeyFrame])
        #expect(lifecycle.handle(.replaced) == [.countLoss(cause: Lifecycle.moved)])
    }

    @Test func lateReportsAreIgnored() {
        var lifecycle = Self.live()
        #expect(lifecycle.handle(.retryDue).isEmpty)
        #expect(lifecycle.handle(.replacementReady).isEmpty && lifecycle.handle(.replaced).isEmpty)
        #expect(lifecycle.handle(.replacementLost(.unreachable)).isEmpty)
        _ = lifecycle.handle(.lost(.stalled))
        #expect(lifecycle.handle(.connected).isEmpty && lifecycle.handle(.lost(.stalled)).isEmpty)
    }
}

extension ConnectionLifecycleTests {
    /// An "in use" refusal after a loss waits the delay given, not the backoff, and counts no attempt:
    /// once the quick retries end, the backoff goes on from the attempt it had reached.
    @Test func aKeyInUseRefusalRetriesAfterTheGivenDelayWithoutGrowingTheBackoff() throws {
        let policy = ReconnectPolicy(initialDelaySeconds: 1, maximumDelaySeconds: 8)
        var lifecycle = Self.live(policy: policy, seed: 3)
        var reference = SplitMix64(seed: 3)
        let first = try #require(policy.delaySeconds(beforeAttempt: 1, random: &reference))
        #expect(lifecycle.handle(.lost(.stalled)).last == .scheduleRetry(seconds: first, attempt: 1))
        _ = lifecycle.handle(.retryDue)
        for _ in 1...3 {
            #expect(lifecycle.handle(.refusedKeyInUse(.unreachable, retryAfterSeconds: 0.25))
                    == [.recordError(.unreachable), .report(.reconnecting), .scheduleRetry(seconds: 0.25, attempt: 1)])
            #expect(lifecycle.state == .waiting(attempt: 1, delaySeconds: 0.25))
            #expect(lifecycle.handle(.retryDue) == [.connect, .report(.reconnecting)])
            #expect(lifecycle.state == .connecting(attempt: 1))
        }
        let second = try #require(policy.delaySeconds(beforeAttempt: 2, random: &reference))
        #expect(lifecycle.handle(.lost(.unreachable)).last == .scheduleRetry(seconds: second, attempt: 2))
        _ = lifecycle.handle(.retryDue)
        #expect(lifecycle.handle(.connected) == [.report(.running)])
        #expect(lifecycle.reconnects == 1)
    }

    /// Outside a connect (a late report) it is an ordinary loss.
    @Test func aKeyInUseRefusalOfALiveConnectionIsALoss() {
        var lifecycle = Self.live()
        let actions = lifecycle.handle(.refusedKeyInUse(.stalled, retryAfterSeconds: 0.25))
        #expect(actions.first == .countLoss(cause: "stalled"))
        guard case .waiting(attempt: 1, _) = lifecycle.state else { Issue.record("\(lifecycle.state)"); return }
    }
}
