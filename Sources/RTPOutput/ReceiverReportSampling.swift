import Output
import RTP

/// Turns a receiver's RTCP receiver reports (``ReceiverReportLedger``) into ``DeliveryHealth``
/// samples, for a plain RTP receiver, a WHIP server and a WHEP viewer alike: what one connection
/// keeps between samples, taken every 500 ms.
///
/// The media of the last report interval is not yet owed: the receiver has not had to say
/// anything about it. WebRTC receivers report about once a second (aiortc every 0.5–1.5 s), so at
/// least the last 2 s of media are never owed. A plain RTP receiver keeps RFC 3550's 5 s minimum
/// (GStreamer's rtpbin does; randomized, gaps reach about 6.2 s), so the window widens to the
/// longest gap between reports seen so far, up to ``maximumWindowSamples``. A receiver silent for
/// longer than that window while media is sent is the evidence of a stall.
public struct ReceiverReportSampling: Sendable {
    /// The report's name for the evidence ("longest gap between RTCP receiver reports").
    public static let receiverReportEvidence = "RTCP receiver report"
    /// The stall message's: "no RTCP receiver report progress for 5.1 s; 420 KB unacknowledged".
    public static let progressEvidence = "RTCP receiver report progress"
    /// Beyond the window's media: a key frame's burst, jitter in the report interval.
    static let inFlightAllowanceBytes: Int64 = 16_384
    /// Samples in the shortest window of media not yet owed: 2 s at 500 ms.
    static let windowSamples = 4
    /// The widest window: 10 s at 500 ms, beyond RFC 3550's longest randomized interval at its 5 s minimum.
    static let maximumWindowSamples = 20

    /// The ledger's counts when the connection started: an ICE restart keeps the media sender.
    private(set) var baseline: (sent: Int64, acknowledged: Int64) = (0, 0)
    /// Bytes sent at the last samples, as a ring (allocated once); `next` is the oldest.
    private var recent = [Int64](repeating: 0, count: maximumWindowSamples + 1)
    private var next = 0
    /// The ledger's applied reports at the last sample, and samples since that count changed.
    private var reportsSeen = 0
    private var samplesSinceReport = 0
    /// The longest gap between two reports, in samples (0 until two reports arrived).
    public private(set) var longestReportGapSamples = 0

    public init() {}

    /// Starts a connection at the ledger's current counts.
    public mutating func restart(_ ledger: ReceiverReportLedger?) {
        baseline = (ledger?.bytesSent ?? 0, ledger?.bytesAcknowledged ?? 0)
        for index in recent.indices { recent[index] = 0 }
        next = 0
        reportsSeen = ledger?.reportsApplied ?? 0
        samplesSinceReport = 0
    }

    /// This connection's counts now, as a health sample.
    public mutating func sample(_ ledger: ReceiverReportLedger, nowNanos: Int64, framesDropped: Int) -> DeliveryHealth.Sample {
        noteReports(ledger.reportsApplied)
        let sent = ledger.bytesSent - baseline.sent
        return DeliveryHealth.Sample(nowNanos: nowNanos, bytesSent: sent,
                                     bytesAcknowledged: max(0, ledger.bytesAcknowledged - baseline.acknowledged),
                                     acknowledgementStepBytes: sentRecently(sent) + Self.inFlightAllowanceBytes,
                                     framesDropped: framesDropped, evidence: Self.progressEvidence)
    }

    /// Samples of media not yet owed: 2 s, or the longest gap between reports (plus a sample of slack).
    var windowSamples: Int {
        min(max(Self.windowSamples, longestReportGapSamples + 1), Self.maximumWindowSamples)
    }

    /// Learns the receiver's report interval from the ledger's count of applied reports.
    private mutating func noteReports(_ applied: Int) {
        samplesSinceReport += 1
        guard applied != reportsSeen else { return }
        if reportsSeen > 0 { longestReportGapSamples = max(longestReportGapSamples, samplesSinceReport) }
        reportsSeen = applied
        samplesSinceReport = 0
    }

    /// Bytes sent since the sample `windowSamples` ago (the connection's start, early on).
    private mutating func sentRecently(_ sent: Int64) -> Int64 {
        let count = recent.count
        let oldest = recent[(next + count - windowSamples) % count]
        recent[next] = sent
        next = (next + 1) % count
        return sent - oldest
    }
}
