import Logging
import NIOCore
import Output
import RTP

/// Delivery health of a plain RTP output, on the socket's event loop: every 500 ms the video bytes
/// sent are compared with the bytes the receiver's RTCP receiver reports acknowledge
/// (``ReceiverReportLedger``, ``ReceiverReportSampling``) in ``DeliveryHealth``.
///
/// - A receiver that never sends RTCP (Janus's streaming plugin, a bare `udpsrc`) leaves the health
///   unknown (nil), never stalled: silence is all such a receiver ever says. The delivery report says so.
/// - From the first report on, the health is judged: reports that stop for `stall_timeout` (beyond
///   the receiver's own report interval) make the output stalled, with a log line naming the evidence.
/// - RTP has no connection to renew, so a stalled output is not "reconnected": it keeps sending (a
///   receiver that comes back, or a new one at the same address, decodes from the next key frame,
///   which is requested when it reports again), and it is healthy again once reports advance.
extension RTPSenderHandler {
    static let healthInterval = TimeAmount.milliseconds(500)
    /// What the delivery report says while the receiver has sent no report.
    static let noReportsYet = "the receiver has sent no RTCP receiver report (plain RTP receivers such as Janus's streaming plugin or a bare udpsrc send none)"

    /// One sample of the receiver's reports into the health state (once there is one), published.
    func judgeDelivery(nowNanos: Int64) {
        let sample = sampling.sample(receiverReports, nowNanos: nowNanos, framesDropped: framesDroppedAtSocket)
        guard receiverReports.reportsApplied > 0 else { return }
        if health == nil {
            var first = DeliveryHealth(settings: .init(stallTimeoutSeconds: configuration.stallTimeoutSeconds),
                                       evidence: ReceiverReportSampling.receiverReportEvidence)
            first.connected(nowNanos: nowNanos)
            health = first
            logger.info("RTP delivery evidence: the receiver sends RTCP receiver reports; delivery health is judged from them")
        }
        let before = health?.state
        switch health?.observe(sample) {
        case .stalled:
            logger.warning("RTP delivery stalled: \(health?.stallDescription ?? ""); still sending, healthy again once receiver reports resume")
        case .degraded:
            logger.info("RTP delivery degraded", metadata: ["evidence": "\(health?.stallDescription ?? "")"])
        case .healthy:
            logger.info("RTP delivery healthy again")
            // A receiver back from a stall may have lost its decoder's state.
            if before == .stalled { requestKeyFrame() }
        case .reconnecting, .failed, nil:
            break
        }
        publishHealth(health)
    }

    /// The output stopped: the health's time stops here.
    func finishDelivery(nowNanos: Int64) {
        healthTask?.cancel()
        healthTask = nil
        health?.finished(nowNanos: nowNanos)
        publishHealth(health)
    }
}
