import MediaCore
import NIOCore
import Output

/// Backup ingests, on `eventLoop`: a lost or stalled connection moves the stream to the next ingest
/// at once (``IngestFailover``); while a backup carries it, the primary is probed
/// (``RTMPConnector/probe(_:timeoutSeconds:on:)``) and, once it has stayed reachable, the stream
/// moves back make-before-break through the pending connection a ReconnectRequest uses.
extension RTMPOutput {
    /// How long one probe of the primary may take.
    static let probeTimeoutSeconds = 3.0

    /// Starts probing the primary (only while a backup is live) and reports the first ingest.
    func beginFailover() {
        guard failover.hasBackups else { return }
        reportIngest()
        let interval = Int64(failover.settings.probeIntervalSeconds * 1e9)
        probeTask = eventLoop.scheduleRepeatedTask(initialDelay: .nanoseconds(interval), delay: .nanoseconds(interval)) { [self] _ in
            probePrimary()
        }
    }

    /// The active connection is gone (or never came up): with backups, `url` moves to the next
    /// ingest and the event says whether to connect there now; nil leaves the usual reconnect alone.
    func moveToNextIngest(after error: RTMPClientError?) -> Lifecycle.Event? {
        guard failover.hasBackups, lifecycle.replacement == nil else { return nil }
        let reason = switch error {
        case let .stalled(evidence)?: "stalled: \(evidence)"
        case let error?: "\(error)"
        case nil: Lifecycle.closedByServer
        }
        let next = failover.failed(reason: reason, nowNanos: MonotonicClock.nowNanos())
        url = configuration.ingests[failover.live]
        reportIngest()
        logger.warning("\(next)", metadata: ["url": "\(url.redacted)", "why": "\(reason)"])
        guard case .connectNow = next else { return .lost(error) }
        return .movedToOtherIngest(error)
    }

    /// One probe of the primary while a backup is live; reachable long enough, the stream goes back.
    func probePrimary() {
        guard failover.probesPrimary, !probing, lifecycle.state == .live, lifecycle.replacement == nil else { return }
        probing = true
        connector.probe(configuration.url, timeoutSeconds: Self.probeTimeoutSeconds, on: eventLoop).whenSuccess { [self] reachable in
            probing = false
            guard failover.probesPrimary, lifecycle.state == .live, lifecycle.replacement == nil else { return }
            guard failover.probed(primaryReachable: reachable, nowNanos: MonotonicClock.nowNanos()) else { return }
            logger.info("primary ingest reachable for \(failover.settings.returnAfterSeconds) s: moving back at a keyframe, make before break",
                        metadata: ["url": "\(configuration.url.redacted)"])
            pendingURL = configuration.url
            let actions = lifecycle.handle(.moveRequested)
            if actions != [.connectReplacement] {
                pendingURL = nil
                failover.returnAbandoned()
            }
            apply(actions)
        }
    }

    /// The pending connection that took over was the return to the primary.
    func returnedToPrimary() {
        failover.returnedToPrimary(nowNanos: MonotonicClock.nowNanos())
        reportIngest()
        logger.info("back on the primary ingest; the backup's connection is closed", metadata: ["url": "\(url.redacted)"])
    }

    /// The primary's new connection did not come up: the stream stays on the backup, probing again.
    func returnFailed(_ error: RTMPClientError?) {
        pendingURL = nil
        failover.returnAbandoned()
        logger.warning("primary ingest did not take the stream; staying on \(IngestFailover.name(of: failover.live))",
                       metadata: ["error": "\(error.map { "\($0)" } ?? "closed by the server")"])
    }

    /// The live ingest into the status (`/api/status`'s `ingest`).
    func reportIngest() {
        let report = IngestReport(index: failover.live, url: configuration.ingests[failover.live].redacted,
                                  sinceUnixSeconds: Self.unixSeconds(), reason: failover.reason)
        shared.withLock { $0.status.ingest = report }
    }
}
