import Output
import Testing
import TestSupport

/// A live connection that can be repaired in place (WebRTC's ICE restart) gets that chance before a
/// fresh connection; the loss is counted once, and a repair's refusal never ends the output.
extension ConnectionLifecycleTests {
    @Test func anInterruptionIsRepairedInPlaceAndCountsAsAReconnect() {
        var lifecycle = Self.live()
        #expect(lifecycle.handle(.interrupted(.stalled)) == [.countLoss(cause: "stalled"), .recordError(.stalled), .report(.reconnecting), .repair])
        #expect(lifecycle.state == .repairing)
        #expect(lifecycle.handle(.connected) == [.report(.running)])
        #expect(lifecycle.state == .live && lifecycle.reconnects == 1)
    }

    @Test func aFailedRepairFallsBackToAFreshConnectionEvenWhenRefused() throws {
        let policy = ReconnectPolicy(initialDelaySeconds: 1, maximumDelaySeconds: 8)
        var lifecycle = Self.live(policy: policy, seed: 5)
        var reference = SplitMix64(seed: 5)
        _ = lifecycle.handle(.interrupted(.stalled))
        let delay = try #require(policy.delaySeconds(beforeAttempt: 1, random: &reference))
        #expect(lifecycle.handle(.repairFailed(.refused)) == [.recordError(.refused), .report(.reconnecting), .scheduleRetry(seconds: delay, attempt: 1)],
                "the loss was counted at the interruption, and a refused repair is no reason to give up")
        #expect(lifecycle.state == .waiting(attempt: 1, delaySeconds: delay))
    }

    @Test func aConnectionLostWhileRepairingIsNotCountedTwiceAndMayGiveUp() {
        var lifecycle = Self.live()
        _ = lifecycle.handle(.interrupted(.stalled))
        #expect(lifecycle.handle(.lost(.refused)) == [.recordError(.refused), .giveUp(.notRetryable(.refused))])
        #expect(lifecycle.state == .failed)
    }

    @Test func anInterruptionWhileConnectingIsALoss() {
        var lifecycle = Lifecycle(policy: ReconnectPolicy(), random: SplitMix64(seed: 2))
        _ = lifecycle.handle(.start)
        #expect(lifecycle.handle(.interrupted(.stalled)).last.map { if case .scheduleRetry = $0 { true } else { false } } == true)
        #expect(lifecycle.handle(.repairFailed(.stalled)).isEmpty, "no repair under way")
    }
}
