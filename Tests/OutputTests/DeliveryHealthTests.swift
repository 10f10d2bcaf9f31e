import Foundation
import Output
import Testing

/// The health state from a fake clock and counters: each transition, the stall message, and the
/// report's numbers.
@Suite struct DeliveryHealthTests {
    static let second: Int64 = 1_000_000_000
    static let step: Int64 = 50_000

    /// A health state on a fake clock, fed like an output's link check.
    struct Feed {
        var health = DeliveryHealth(settings: .init(stallTimeoutSeconds: 5, recentDropSeconds: 5), evidence: "RTMP acknowledgement")
        var nowNanos: Int64 = 100 * DeliveryHealthTests.second
        var sent: Int64 = 0
        var acknowledged: Int64 = 0
        var dropped = 0

        /// Moves the clock by `seconds` in 0.5 s checks; the receiver takes `acknowledging` of each
        /// `sending` bytes the output sends per check. Returns the state changes seen.
        @discardableResult
        mutating func run(seconds: Double, sending: Int64 = 100_000, acknowledging: Bool = true) -> [DeliveryHealth.State] {
            var changes: [DeliveryHealth.State] = []
            for _ in 0..<Int(seconds * 2) {
                nowNanos += DeliveryHealthTests.second / 2
                sent += sending
                if acknowledging { acknowledged = sent }
                if let change = observe() { changes.append(change) }
            }
            return changes
        }

        mutating func observe() -> DeliveryHealth.State? {
            health.observe(.init(nowNanos: nowNanos, bytesSent: sent, bytesAcknowledged: acknowledged,
                                 acknowledgementStepBytes: DeliveryHealthTests.step, framesDropped: dropped, evidence: "RTMP acknowledgement"))
        }

        mutating func connect() {
            (sent, acknowledged) = (0, 0)
            health.connected(nowNanos: nowNanos)
        }
    }

    @Test func staysHealthyWhileTheReceiverAcknowledges() {
        var feed = Feed()
        feed.connect()
        #expect(feed.health.state == .healthy)
        #expect(feed.run(seconds: 30).isEmpty)
        #expect(feed.health.state == .healthy)
    }

    @Test func silenceIsDegradedAtHalfTheTimeoutAndStalledAtIt() {
        var feed = Feed()
        feed.connect()
        feed.run(seconds: 2)
        #expect(feed.run(seconds: 2, acknowledging: false).isEmpty, "2 s without acknowledgement is still healthy")
        #expect(feed.run(seconds: 0.5, acknowledging: false) == [.degraded], "2.5 s: half the 5 s timeout")
        #expect(feed.run(seconds: 2, acknowledging: false).isEmpty)
        #expect(feed.run(seconds: 0.5, acknowledging: false) == [.stalled], "5 s")
        #expect(feed.health.stallDescription == "no RTMP acknowledgement for 5.0 s; 1.0 MB unacknowledged")
        feed.health.lost(nowNanos: feed.nowNanos, cause: "stalled")
        #expect(feed.health.state == .stalled, "stalled until a new connection carries media")
        #expect(feed.observe() == nil, "samples of a closed connection change nothing")
        feed.nowNanos += 2 * Self.second
        feed.connect()
        #expect(feed.health.state == .healthy)
        #expect(feed.run(seconds: 3).isEmpty)
    }

    @Test func acknowledgementsComingBackMakeItHealthyAgain() {
        var feed = Feed()
        feed.connect()
        feed.run(seconds: 3, acknowledging: false)
        #expect(feed.health.state == .degraded)
        #expect(feed.run(seconds: 0.5) == [.healthy])
    }

    /// A receiver owed less than one acknowledgement step is not silent: it owes nothing yet.
    @Test func aReceiverOwedLessThanAStepIsNotStalled() {
        var feed = Feed()
        feed.connect()
        #expect(feed.run(seconds: 20, sending: 1000, acknowledging: false).isEmpty, "20 KB in 20 s, under the 50 KB step")
        #expect(feed.run(seconds: 20, sending: 0, acknowledging: false).isEmpty, "nothing sent, nothing owed")
    }

    @Test func dropsMakeItDegradedForAWhile() {
        var feed = Feed()
        feed.connect()
        feed.run(seconds: 1)
        feed.dropped = 3
        #expect(feed.run(seconds: 0.5) == [.degraded])
        #expect(feed.run(seconds: 4).isEmpty, "still within 5 s of the drop")
        #expect(feed.run(seconds: 1) == [.healthy])
    }

    @Test func anErrorIsReconnecting() {
        var feed = Feed()
        feed.connect()
        feed.run(seconds: 1)
        feed.health.lost(nowNanos: feed.nowNanos, cause: "closed by server")
        #expect(feed.health.state == .reconnecting)
        feed.nowNanos += 3 * Self.second
        feed.connect()
        #expect(feed.health.report(at: feed.nowNanos).seconds[.reconnecting] == 3)
        #expect(feed.health.report(at: feed.nowNanos).reconnectCauses == ["closed by server": 1])
    }

    @Test func finishedStopsTheClock() {
        var feed = Feed()
        feed.connect()
        feed.run(seconds: 2)
        feed.health.finished(nowNanos: feed.nowNanos)
        feed.nowNanos += 10 * Self.second
        let report = feed.health.report(at: feed.nowNanos)
        #expect(report.seconds == [.healthy: 2])
        #expect(report.bytesSent == 400_000 && report.bytesAcknowledged == 400_000)
    }

    @Test func failedEndsIt() {
        var feed = Feed()
        feed.connect()
        feed.health.failed(nowNanos: feed.nowNanos)
        #expect(feed.health.state == .failed)
        #expect(feed.run(seconds: 10, acknowledging: false).isEmpty)
    }

    /// Times per state, reconnect causes, bytes and the longest gap, against what the feed did:
    /// 10 s healthy, 5 s to the stall, 1 s stalled until the new connection, 4 s healthy again.
    @Test func theReportAddsUpWhatHappened() throws {
        var feed = Feed()
        feed.connect()
        feed.run(seconds: 10)
        let lastAcknowledgement = feed.nowNanos
        feed.run(seconds: 5, acknowledging: false)
        #expect(feed.health.state == .stalled)
        feed.health.lost(nowNanos: feed.nowNanos, cause: "stalled")
        feed.nowNanos += Self.second
        feed.connect()
        feed.run(seconds: 4)
        let report = feed.health.report(at: feed.nowNanos)
        #expect(report.seconds[.healthy] == 10 + 2.5 + 4)
        #expect(report.seconds[.degraded] == 2.5)
        #expect(report.seconds[.stalled] == 1, "from the verdict to the new connection")
        #expect(report.seconds[.reconnecting] == nil)
        #expect(report.reconnectCauses == ["stalled": 1])
        #expect(report.bytesSent == (20 + 10 + 8) * 100_000)
        #expect(report.bytesAcknowledged == (20 + 8) * 100_000)
        // From the last acknowledgement before the stall to the first after the reconnect.
        let gap = Double(feed.nowNanos - 3 * Self.second - Self.second / 2 - lastAcknowledgement) / 1e9
        #expect(report.longestGapSeconds == gap && gap == 6.5)
        #expect(report.summary.contains("1 reconnect (stalled 1)"), "\(report.summary)")
        #expect(report.summary.contains("longest gap between RTMP acknowledgements 6.5 s"), "\(report.summary)")
    }

    @Test func theReportEncodesStatesAsKeys() throws {
        var report = DeliveryReport(evidence: "RTMP acknowledgement")
        report.seconds[.stalled] = 1.5
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(json.contains(#""seconds":{"stalled":1.5}"#), "\(json)")
        #expect(try JSONDecoder().decode(DeliveryReport.self, from: Data(json.utf8)) == report)
    }

    @Test(arguments: [(Int64(512), "512 B"), (35_400, "35 KB"), (1_449_999, "1.4 MB"), (12_000_000, "12.0 MB")])
    func describesByteCounts(bytes: Int64, text: String) {
        #expect(DeliveryHealth.describe(bytes: bytes) == text)
    }

    /// An RTP output whose receiver sends no RTCP: no times or acknowledgements to report, only why.
    @Test func anUnknownReportSaysWhyAndWhatWasSent() {
        var report = DeliveryReport(evidence: "RTCP receiver report", unknownBecause: "the receiver has sent no RTCP receiver report",
                                    bytesSent: 1_234_567)
        report.framesDropped = ["queue full": 0]
        #expect(report.summary == "delivery unknown: the receiver has sent no RTCP receiver report; 1.2 MB sent")
    }
}
