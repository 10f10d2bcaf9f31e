import Pipeline
import RTP

/// Turns a WebRTC peer's RTCP receiver reports (``ReceiverReportLedger``) into ``DeliveryHealth``
/// samples, for a WHIP server and a WHEP viewer alike: what one connection keeps between samples,
/// taken every 500 ms.
///
/// WebRTC receivers report about once a second (aiortc every 0.5–1.5 s) and the packets of the last
/// second or so may still be on the way, so the last 2 s of media sent are not yet owed: a receiver
/// silent for longer while media is sent is the evidence of a stall.
struct ReceiverReportSampling {
    /// The report's name for the evidence ("longest gap between RTCP receiver reports").
    static let receiverReportEvidence = "RTCP receiver report"
    /// The stall message's: "no RTCP receiver report progress for 5.1 s; 420 KB unacknowledged".
    static let progressEvidence = "RTCP receiver report progress"
    /// Beyond the last 2 s of media: a key frame's burst, jitter in the report interval.
    static let inFlightAllowanceBytes: Int64 = 16_384
    /// Samples in the window of media not yet owed: 2 s at 500 ms.
    static let windowSamples = 4

    /// The ledger's counts when the connection started: an ICE restart keeps the media sender.
    private(set) var baseline: (sent: Int64, acknowledged: Int64) = (0, 0)
    /// Bytes sent at the last samples, as a ring (allocated once).
    private var recent = [Int64](repeating: 0, count: windowSamples)
    private var next = 0

    /// Starts a connection at the ledger's current counts.
    mutating func restart(_ ledger: ReceiverReportLedger?) {
        restart(sent: ledger?.bytesSent ?? 0, acknowledged: ledger?.bytesAcknowledged ?? 0)
    }

    /// This connection's counts now, as a health sample.
    mutating func sample(_ ledger: ReceiverReportLedger, nowNanos: Int64, framesDropped: Int) -> DeliveryHealth.Sample {
        let sent = ledger.bytesSent - baseline.sent
        return DeliveryHealth.Sample(nowNanos: nowNanos, bytesSent: sent,
                                     bytesAcknowledged: max(0, ledger.bytesAcknowledged - baseline.acknowledged),
                                     acknowledgementStepBytes: sentRecently(sent) + Self.inFlightAllowanceBytes,
                                     framesDropped: framesDropped, evidence: Self.progressEvidence)
    }

    private mutating func restart(sent: Int64, acknowledged: Int64) {
        baseline = (sent, acknowledged)
        for index in recent.indices { recent[index] = 0 }
        next = 0
    }

    /// Bytes sent since the sample `windowSamples` ago (the connection's start, early on).
    private mutating func sentRecently(_ sent: Int64) -> Int64 {
        let oldest = recent[next]
        recent[next] = sent
        next = (next + 1) % recent.count
        return sent - oldest
    }
}
