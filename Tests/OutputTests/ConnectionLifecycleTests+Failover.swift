import Output
import Testing

/// Moving to another ingest (a backup): at once, without counting an attempt or growing the backoff.
extension ConnectionLifecycleTests {
    @Test func aMoveToAnotherIngestConnectsAtOnce() {
        var lifecycle = Self.live()
        #expect(lifecycle.handle(.movedToOtherIngest(.stalled))
                == [.countLoss(cause: "stalled"), .recordError(.stalled), .report(.reconnecting), .scheduleRetry(seconds: 0, attempt: 0)])
        #expect(lifecycle.handle(.retryDue) == [.connect, .report(.reconnecting)])
        #expect(lifecycle.handle(.movedToOtherIngest(.unreachable))
                == [.recordError(.unreachable), .report(.reconnecting), .scheduleRetry(seconds: 0, attempt: 0)],
                "a failed connect to the backup moves on without counting an attempt")
        _ = lifecycle.handle(.retryDue)
        #expect(lifecycle.handle(.connected) == [.report(.running)])
        #expect(lifecycle.reconnects == 1)
    }
}
