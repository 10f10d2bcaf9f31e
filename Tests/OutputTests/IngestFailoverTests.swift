import Output
import Testing

/// Which ingest carries the stream, as a pure value with a controlled clock: the order of the moves,
/// when the backoff takes over, and the hysteresis of the return to the primary.
@Suite struct IngestFailoverTests {
    static func seconds(_ value: Double) -> Int64 { Int64(value * 1e9) }

    @Test func lossesMoveThroughTheIngestsInOrderThenBackOff() {
        var failover = IngestFailover(backups: 2, nowNanos: 0)
        #expect(failover.live == 0 && failover.reason == "started" && !failover.probesPrimary)
        #expect(failover.failed(reason: "stalled", nowNanos: Self.seconds(1)) == .connectNow(index: 1))
        #expect(failover.live == 1 && failover.reason == "stalled" && failover.sinceNanos == Self.seconds(1))
        #expect(failover.failed(reason: "refused", nowNanos: Self.seconds(2)) == .connectNow(index: 2))
        #expect(failover.failed(reason: "refused", nowNanos: Self.seconds(3)) == .backOff(index: 0),
                "every ingest failed since the last live connection: the backoff applies")
        #expect(failover.failed(reason: "refused", nowNanos: Self.seconds(4)) == .backOff(index: 1))
        failover.connected()
        #expect(failover.failed(reason: "stalled", nowNanos: Self.seconds(5)) == .connectNow(index: 2),
                "a live connection starts the count again")
    }

    @Test func withoutBackupsNothingMoves() {
        var failover = IngestFailover(backups: 0, nowNanos: 0)
        #expect(!failover.hasBackups)
        #expect(failover.failed(reason: "stalled", nowNanos: 1) == .backOff(index: 0))
    }

    @Test func returnsOnlyAfterThePrimaryStayedReachable() {
        var failover = IngestFailover(backups: 1, settings: .init(returnAfterSeconds: 10), nowNanos: 0)
        _ = failover.failed(reason: "stalled", nowNanos: 0)
        failover.connected()
        #expect(failover.probesPrimary)
        #expect(failover.probed(primaryReachable: true, nowNanos: Self.seconds(5)) == false)
        #expect(failover.probed(primaryReachable: true, nowNanos: Self.seconds(10)) == false)
        #expect(failover.probed(primaryReachable: false, nowNanos: Self.seconds(15)) == false, "one failed probe starts the wait again")
        #expect(failover.probed(primaryReachable: true, nowNanos: Self.seconds(20)) == false)
        #expect(failover.probed(primaryReachable: true, nowNanos: Self.seconds(29.9)) == false)
        #expect(failover.probed(primaryReachable: true, nowNanos: Self.seconds(30)) == true)
        #expect(failover.isReturning && !failover.probesPrimary, "no probing while the move back is under way")
        failover.returnedToPrimary(nowNanos: Self.seconds(31))
        #expect(failover.live == 0 && failover.reason == "primary back" && failover.sinceNanos == Self.seconds(31))
        #expect(!failover.probesPrimary && !failover.isReturning)
    }

    @Test func anAbandonedReturnWaitsTheWholeTimeAgain() {
        var failover = IngestFailover(backups: 1, settings: .init(returnAfterSeconds: 4), nowNanos: 0)
        _ = failover.failed(reason: "closed by server", nowNanos: 0)
        _ = failover.probed(primaryReachable: true, nowNanos: 0)
        #expect(failover.probed(primaryReachable: true, nowNanos: Self.seconds(4)) == true)
        failover.returnAbandoned()
        #expect(failover.probesPrimary && failover.live == 1)
        #expect(failover.probed(primaryReachable: true, nowNanos: Self.seconds(5)) == false)
        #expect(failover.probed(primaryReachable: true, nowNanos: Self.seconds(9)) == true)
    }

    @Test func probesComeTwiceWithinAShortWaitAndAtMostEveryFiveSeconds() {
        #expect(IngestFailover.Settings(returnAfterSeconds: 10).probeIntervalSeconds == 5)
        #expect(IngestFailover.Settings(returnAfterSeconds: 60).probeIntervalSeconds == 5)
        #expect(IngestFailover.Settings(returnAfterSeconds: 2).probeIntervalSeconds == 1)
    }
}
