import MediaCore
import Output

/// Backup ingests of an SRT caller, on the output's thread: a lost or stalled connection (or one
/// that never came up) moves the stream to the next ingest at once (``IngestFailover``); while a
/// backup carries it, the primary is probed with a connect at each probe interval and, once every
/// probe for `returnAfterSeconds` has reached it, the last probe's connection becomes the stream's
/// (make before break) and the backup's is closed once its receiver has played out what it was sent.
extension SRTSender {
    /// The event a loss of the live ingest's connection is for the lifecycle: with backups, the next
    /// ingest becomes the target, to dial now (`movedToOtherIngest`) or after the backoff once every
    /// ingest failed (`lost`); without, the usual `lost`.
    func lossEvent(after error: SRTOutputError) -> Lifecycle.Event {
        guard failover.hasBackups else { return .lost(error) }
        probe = nil
        let reason = if case let .stalled(evidence) = error { "stalled: \(evidence)" } else { "\(error)" }
        let next = failover.failed(reason: reason, nowNanos: MonotonicClock.nowNanos())
        target = configuration.ingest(failover.live)
        reportIngest()
        logger.warning("\(next)", metadata: ["output": "\(target.maskedTarget)", "why": "\(reason)"])
        guard case .connectNow = next else { return .lost(error) }
        return .movedToOtherIngest(error)
    }

    /// At each video frame while a backup is live: starts a probe of the primary when one is due,
    /// or follows the one under way (libsrt connects in its background, so nothing blocks here).
    func probePrimaryIfDue() {
        guard failover.probesPrimary, connection != nil else { return }
        let now = MonotonicClock.nowNanos()
        guard let socket = probe else {
            guard now >= nextProbeNanos else { return }
            nextProbeNanos = now + Int64(failover.settings.probeIntervalSeconds * 1e9)
            do throws(SRTOutputError) {
                let socket = try SRTSocket.make(configuration)
                try socket.startConnect(host: configuration.host, port: configuration.port, target: configuration.maskedTarget)
                probe = socket
            } catch {
                _ = failover.probed(primaryReachable: false, nowNanos: now)
            }
            return
        }
        switch socket.progress(target: configuration.maskedTarget) {
        case .connecting:
            return
        case .failed:
            probe = nil
            _ = failover.probed(primaryReachable: false, nowNanos: now)
        case .connected:
            probe = nil  // closed, unless it becomes the stream's connection
            guard failover.probed(primaryReachable: true, nowNanos: now) else { return }
            returnToPrimary(socket)
        }
    }

    /// The primary took every probe for `returnAfterSeconds`: the probe's connection carries the
    /// stream from the keyframe asked for now, and the backup's connection is closed once its
    /// receiver has had the last packets (``RetiringSRTConnection``).
    private func returnToPrimary(_ socket: SRTSocket) {
        logger.info("primary ingest reachable for \(failover.settings.returnAfterSeconds) s: moving back, make before break",
                    metadata: ["output": "\(configuration.maskedTarget)"])
        sampleStatistics(force: true)
        earlierTotals = shared.withLock { $0.link }
        muxer?.finish()
        muxer = nil
        retiring = connection.map { RetiringSRTConnection(socket: $0, nowNanos: MonotonicClock.nowNanos(), timeoutSeconds: Self.drainSeconds) }
        connection = nil
        target = configuration
        failover.returnedToPrimary(nowNanos: MonotonicClock.nowNanos())
        reportIngest()
        connected(socket)
        logger.info("back on the primary ingest; the backup's connection closes once its receiver has the last packets", metadata: ["output": "\(target.maskedTarget)"])
    }

    /// The live ingest into the status (`/api/status`'s `ingest`).
    func reportIngest() {
        let report = IngestReport(index: failover.live, url: target.maskedTarget,
                                  sinceUnixSeconds: Double(MonotonicClock.wallClockNowNanos() / 1_000_000) / 1000, reason: failover.reason)
        update { $0.status.ingest = report }
    }
}
