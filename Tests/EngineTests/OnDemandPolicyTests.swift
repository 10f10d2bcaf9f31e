import Testing
@testable import Engine

/// The run/idle decision of an on-demand camera, on made-up times (seconds as nanoseconds).
@Suite struct OnDemandPolicyTests {
    typealias Demand = OnDemandPolicy.Demand
    static func at(_ seconds: Double) -> Int64 { Int64(seconds * 1e9) }
    let nobody = Demand()
    let viewer = Demand(viewers: 1)

    @Test func anUnwatchedCameraIdlesAtOnceAfterItsStartCheck() {
        var policy = OnDemandPolicy(graceSeconds: 10, running: true)
        #expect(policy.decide(nobody, nowNanos: Self.at(0)) == .stop, "nothing ever wanted it: no grace")
        #expect(!policy.isRunning)
        #expect(policy.decide(nobody, nowNanos: Self.at(60)) == .keep)
    }

    @Test func aViewerStartsItAndTheGraceOutlivesTheViewer() {
        var policy = OnDemandPolicy(graceSeconds: 10, running: false)
        #expect(policy.decide(viewer, nowNanos: Self.at(1)) == .start)
        #expect(policy.decide(viewer, nowNanos: Self.at(5)) == .keep)
        #expect(policy.decide(nobody, nowNanos: Self.at(6)) == .keep, "the viewer left at 5 s: grace until 15 s")
        #expect(policy.decide(nobody, nowNanos: Self.at(14.9)) == .keep)
        #expect(policy.decide(nobody, nowNanos: Self.at(15)) == .stop)
        #expect(policy.decide(nobody, nowNanos: Self.at(16)) == .keep)
    }

    @Test func aViewerBackWithinTheGraceKeepsItRunning() {
        var policy = OnDemandPolicy(graceSeconds: 10, running: false)
        #expect(policy.decide(viewer, nowNanos: Self.at(0)) == .start)
        #expect(policy.decide(nobody, nowNanos: Self.at(8)) == .keep)
        #expect(policy.decide(viewer, nowNanos: Self.at(9)) == .keep, "a page reload: no stop, no new start")
        #expect(policy.decide(nobody, nowNanos: Self.at(18)) == .keep, "the grace counts from the last time it was wanted")
        #expect(policy.decide(nobody, nowNanos: Self.at(19)) == .stop)
    }

    @Test(arguments: [Demand(activeOutputs: 1), Demand(viewers: 2), Demand(heldUntilNanos: at(3))])
    func everyKindOfDemandStartsIt(demand: Demand) {
        var policy = OnDemandPolicy(graceSeconds: 1, running: false)
        #expect(policy.decide(demand, nowNanos: Self.at(2)) == .start)
    }

    @Test func theLogSaysWhatWantsTheCamera() {
        #expect(Demand(activeOutputs: 2, viewers: 1, heldUntilNanos: Self.at(5)).wanters(atNanos: Self.at(1)) == "2 outputs, 1 viewer, a snapshot")
        #expect(Demand(activeOutputs: 1, heldUntilNanos: Self.at(5)).wanters(atNanos: Self.at(6)) == "1 output")
        #expect(Demand().wanters(atNanos: 0).isEmpty)
    }

    @Test func aSnapshotHoldEndsAtItsTime() {
        var policy = OnDemandPolicy(graceSeconds: 0, running: false)
        let held = Demand(heldUntilNanos: Self.at(3))
        #expect(policy.decide(held, nowNanos: Self.at(4)) == .keep, "a hold that ended starts nothing")
        #expect(policy.decide(held, nowNanos: Self.at(1)) == .start)
        #expect(policy.decide(held, nowNanos: Self.at(2.9)) == .keep)
        #expect(policy.decide(held, nowNanos: Self.at(3)) == .stop)
    }

    @Test func aFailedStartIsAskedForAgain() {
        var policy = OnDemandPolicy(graceSeconds: 10, running: false)
        #expect(policy.decide(viewer, nowNanos: Self.at(0)) == .start)
        policy.startFailed()
        #expect(policy.decide(viewer, nowNanos: Self.at(0.1)) == .start)
    }
}
