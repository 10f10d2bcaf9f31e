import MediaCore
import NIOCore
import RTP

/// Delivery health, on the publisher's event loop: every 500 ms the session's video bytes sent are
/// compared with the bytes the server's RTCP receiver reports acknowledge (``ReceiverReportLedger``)
/// in ``DeliveryHealth``; a stalled session is replaced by a fresh one (the ordinary reconnect path,
/// which starts on a key frame with parameter sets).
///
/// WebRTC receivers report about once a second (aiortc every 0.5–1.5 s) and the packets of the last
/// second or so may still be on the way, so the last 2 s of media sent are not yet owed: a receiver
/// silent for longer while media is sent is the evidence of a stall. (One reporting only every 5 s,
/// RFC 3550's plain-RTP minimum, needs a longer `stall_timeout`.) A server
/// that still answers ICE consent but sends no report (or reports the same packet again) is stalled;
/// one that stops answering consent first is handled by the consent path, and the report's reconnect
/// cause says which ("stalled" or "ICE consent lost").
extension WHIPPublisher {
    static let healthInterval = TimeAmount.milliseconds(500)

    /// One sample of the connected session into the health state; a stall fails the session.
    func judgeDelivery(nowNanos: Int64) {
        guard machine.state == .live, let ledger = peer?.media?.videoReceiverReports else { return }
        let sample = healthSampling.sample(ledger, nowNanos: nowNanos, framesDropped: socketGate.framesDropped)
        switch health.observe(sample) {
        case .stalled:
            // The retry's log line names the evidence (the error's description).
            handle(.mediaFailed(.stalled(evidence: health.stallDescription)))
            return
        case .degraded:
            logger.info("delivery degraded", metadata: ["evidence": "\(health.stallDescription)"])
        case .healthy:
            logger.info("delivery healthy again")
        case .reconnecting, .failed, nil:
            break
        }
        publishSnapshot()
    }

    /// Keeps the health state in step with the session's lifecycle: media connected (again, after an
    /// ICE restart too), a session that carried media lost (with its cause), given up, stopped.
    func noteDelivery(from before: WHIPSession<SystemRandomNumberGenerator>.Lifecycle.State,
                      to after: WHIPSession<SystemRandomNumberGenerator>.Lifecycle.State,
                      after event: WHIPSession<SystemRandomNumberGenerator>.Event) {
        guard before != after else { return }
        let now = MonotonicClock.nowNanos()
        switch after {
        case .live:
            healthSampling.restart(peer?.media?.videoReceiverReports)
            health.connected(nowNanos: now)
        case .failed:
            health.failed(nowNanos: now)
        case .stopping, .stopped:
            health.finished(nowNanos: now)
        default:
            if before == .live, case .mediaFailed(let error) = event { health.lost(nowNanos: now, cause: error.cause) }
        }
    }
}
