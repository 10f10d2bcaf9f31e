import MediaCore
import NIOCore
import Output
import RTMP

/// The connection lifecycle, all on `eventLoop`: connect, publish, reconnect with backoff, move to another
/// server on request, stop cleanly.
extension RTMPOutput: RTMPSessionDelegate {
    func begin() {
        monitor = eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(500), delay: .milliseconds(500)) { [self] _ in
            checkLink()
        }
        beginFailover()
        apply(lifecycle.handle(.start))
    }

    /// Does what the ``ConnectionLifecycle`` decided.
    func apply(_ actions: [Lifecycle.Action]) {
        for action in actions {
            switch action {
            case .connect:
                connect(as: .active)
            case .connectReplacement:
                connect(as: .pending)
            case .handOverAtNextKeyFrame:
                requestKeyFrame()
            case .handOverNow:
                promotePending()
            case .scheduleRetry(let delay, let attempt):
                logger.info("reconnecting", metadata: ["in": "\(String(format: "%.2f", delay)) s", "attempt": "\(attempt)"])
                reconnectTimer = eventLoop.scheduleTask(in: .nanoseconds(Int64(delay * 1e9))) { [self] in
                    apply(lifecycle.handle(.retryDue))
                }
            case .cancelRetry:
                reconnectTimer?.cancel()
            case .close:
                close()
            case .report(let state):
                setState(state)
            case .recordError(let error):
                logger.warning("connection lost", metadata: ["error": "\(error)"])
                shared.withLock { $0.status.lastError = error.description }
            case .countLoss(let cause):
                keyInUse.ownConnectionLost(atNanos: MonotonicClock.nowNanos())
                deliveryLost(cause: cause)
            case .giveUp(.notRetryable(let error)):
                logger.error("giving up on this output", metadata: ["error": "\(error)"])
                setState(.failed)
            case .giveUp(.attemptsExhausted(let attempts)):
                logger.error("giving up after \(attempts) reconnect attempts")
                setState(.failed)
            case .finished:
                completeStop()
            case .repair:
                break // RTMP reports no interruption to repair in place: a lost connection is replaced.
            }
        }
    }

    func connect(as role: Role) {
        connecting = role
        let url = role == .pending ? pendingURL ?? url : url
        var configuration = publishConfiguration(url: url)
        configuration.acknowledgementWindow = Self.acknowledgementWindow(bitsPerSecond: self.configuration.stream.videoBitrateBitsPerSecond)
        logger.info("connecting", metadata: ["url": "\(url.redacted)"])
        connector.connect(to: url, configuration: configuration, on: eventLoop, delegate: self).whenFailure { [self] error in
            connecting = nil
            // No handler attached (they do once connected); clear the role all the same.
            if role == .active { session = nil } else { pending = nil }
            lost(role: role, error: RTMPSessionHandler.clientError(error))
        }
    }

    func session(_ handler: RTMPSessionHandler, didReport event: RTMPSessionEvent) {
        eventLoop.assertInEventLoop()
        let role: Role? = handler === session ? .active : handler === pending ? .pending : nil
        switch event {
        case .attached:
            guard let attaching = connecting else { return handler.abort() }
            connecting = nil
            if lifecycle.isStopping { return handler.abort() }
            if attaching == .active { session = handler } else { pending = handler }
        case .publishing(let messageStreamID):
            if role == .pending {
                logger.info("new server ready; switching at the next keyframe")
                apply(lifecycle.handle(.replacementReady))
            } else if role == .active {
                startPublishing(messageStreamID: messageStreamID)
            }
        case .reconnectRequested(let tcURL):
            guard role == .active, connecting == nil else { return }
            let actions = lifecycle.handle(.moveRequested)
            guard actions == [.connectReplacement] else { return apply(actions) }
            moveOnRequest(tcURL: tcURL)
        case .writable:
            if role == .active { drain() }
        case .closed(let error):
            guard let role else { return }
            if role == .pending {
                pending = nil
            } else {
                session = nil
                packetizers = []
            }
            lost(role: role, error: error)
        }
    }

    /// The server said "publishing": announce the stream, then send from the next keyframe on (asking
    /// the encoder for one, unless a hand-over found it at the front of the queue).
    func startPublishing(messageStreamID: UInt32, atKeyFrame: Bool = false) {
        guard let session else { return }
        do {
            packetizers = try makePacketizers(for: session, messageStreamID: messageStreamID)
        } catch {
            session.fail(error)
            return
        }
        let actions = lifecycle.handle(.connected)
        keyInUse.connected()
        failover.connected()
        sentParameterSets = Array(repeating: nil, count: packetizers.count)
        session.write(media: metadata())
        if let audioSequenceHeader {
            session.write(media: packetizers[0].audio(audioSequenceHeader, timestamp: clock.currentMillis))
        }
        session.flush()
        let now = MonotonicClock.nowNanos()
        let reconnects = lifecycle.reconnects
        let reason = tracksReason
        shared.withLock {
            $0.health.connected(nowNanos: now)
            $0.queue.restartAtKeyFrame()
            _ = $0.queue.takeKeyFrameRequest()
            $0.status.reconnects = reconnects
            $0.status.stateReason = reason
        }
        apply(actions)
        logger.info("publishing", metadata: ["url": "\(url.redacted)", "connection": "\(lifecycle.connectionsLive)"])
        if !atKeyFrame { requestKeyFrame() }
        drain()
    }

    /// The pending connection takes over at the keyframe at the front of the queue: the old one (if
    /// any) says goodbye and closes, the new one gets metadata and sequence headers, then that keyframe.
    func promotePending() {
        guard let next = pending, lifecycle.replacement == .ready, let streamID = next.publishingStreamID else { return }
        let atKeyFrame = lifecycle.state == .live
        apply(lifecycle.handle(.replaced))
        session?.stop()
        session = next
        pending = nil
        if let pendingURL { url = pendingURL }
        pendingURL = nil
        if failover.isReturning {
            returnedToPrimary()
        } else {
            reportReconnectRequest(.honoured)
            logger.info("reconnect request honoured: the new connection carries the stream, the old one is closed",
                        metadata: ["url": "\(url.redacted)"])
        }
        startPublishing(messageStreamID: streamID, atKeyFrame: atKeyFrame)
    }

    /// `NetConnection.Connect.ReconnectRequest`: make before break. Open the new server beside the old
    /// (``RTMPReconnectRequest/decide(tcURL:current:configured:policy:)``), switch at a keyframe once it
    /// publishes; a refused move is logged and the stream stays where it is.
    func moveOnRequest(tcURL: String?) {
        let now = Self.unixSeconds()
        switch RTMPReconnectRequest.decide(tcURL: tcURL, current: url, configured: configuration.url, policy: configuration.followRedirects) {
        case .refuse(let target, let reason):
            logger.warning("reconnect request refused: \(reason); the stream stays here", metadata: ["to": "\(target)"])
            shared.withLock {
                $0.status.lastError = "reconnect request to \(target) refused: \(reason)"
                $0.status.reconnectRequest = ReconnectRequestReport(outcome: .refused, requestedAtUnixSeconds: now,
                                                                    decidedAtUnixSeconds: now, target: target, reason: reason)
            }
            apply(lifecycle.handle(.replacementLost(nil)))
        case .follow(let target):
            pendingURL = target
            logger.info("server asked us to reconnect: opening the new connection beside this one", metadata: ["to": "\(target.redacted)"])
            shared.withLock {
                $0.status.reconnectRequest = ReconnectRequestReport(outcome: .switching, requestedAtUnixSeconds: now,
                                                                    decidedAtUnixSeconds: now, target: target.redacted)
            }
            apply([.connectReplacement])
        }
    }

    /// The new connection of a ReconnectRequest never came up: the stream carries on where it is (or,
    /// if the old connection is gone too, reconnects there with the usual backoff).
    func replacementFailed(_ error: RTMPClientError?) {
        pendingURL = nil
        let reason = error.map { "\($0)" } ?? "closed by the server"
        let next = session != nil ? "the stream carries on on the current connection" : "reconnecting to the current URL"
        logger.warning("reconnect request failed: the new connection did not come up (\(reason)); \(next)",
                       metadata: ["url": "\(url.redacted)"])
        reportReconnectRequest(.failed, reason: reason)
    }

    /// Moves the latest request's report on to `outcome`, now.
    func reportReconnectRequest(_ outcome: ReconnectRequestReport.Outcome, reason: String? = nil) {
        let now = Self.unixSeconds()
        shared.withLock {
            $0.status.reconnectRequest?.outcome = outcome
            $0.status.reconnectRequest?.decidedAtUnixSeconds = now
            $0.status.reconnectRequest?.reason = reason
        }
    }

    static func unixSeconds() -> Double { Double(MonotonicClock.wallClockNowNanos() / 1_000_000) / 1000 }

    /// A connection ended (or never came up): the lifecycle decides what follows; while stopping, the
    /// stop completes once nothing is open.
    func lost(role: Role, error: RTMPClientError?) {
        if lifecycle.isStopping {
            if session == nil && pending == nil && connecting == nil { apply(lifecycle.handle(.closed)) }
            return
        }
        if role == .active, let error, error.isKeyInUse, let seconds = retrySoon(refused: error) {
            return apply(lifecycle.handle(.refusedKeyInUse(error, retryAfterSeconds: seconds)))
        }
        if role == .pending, lifecycle.replacement != nil {
            if failover.isReturning { returnFailed(error) } else { replacementFailed(error) }
        }
        let event: Lifecycle.Event = role == .active ? moveToNextIngest(after: error) ?? .lost(error) : .replacementLost(error)
        apply(lifecycle.handle(event))
    }

    /// The key was refused as in use: soon after a loss of ours, the seconds until the next try
    /// (``KeyInUseRetry``); nil for the normal backoff. The status says which, and the log says why.
    func retrySoon(refused error: RTMPClientError) -> Double? {
        let verdict = keyInUse.judgeRefusal(atNanos: MonotonicClock.nowNanos())
        shared.withLock { $0.status.stateReason = verdict.stateReason }
        verdict.log(to: logger, metadata: ["error": "\(error)"])
        return verdict.retryAfterSeconds
    }

    func finish(_ promise: EventLoopPromise<Void>) {
        guard !lifecycle.isStopping else { return promise.succeed() }
        stopPromise = promise
        apply(lifecycle.handle(.stop))
    }

    /// Stop: send what is queued on a publishing connection and say goodbye; abort the rest.
    func close() {
        monitor?.cancel()
        probeTask?.cancel()
        pending?.abort()
        if let session, session.isPublishing {
            drain(untilEmpty: true)
            session.stop()
        } else {
            session?.abort()
        }
        if session == nil && pending == nil && connecting == nil { return apply(lifecycle.handle(.closed)) }
        // A server that never closes its side must not hold up the exit.
        eventLoop.scheduleTask(in: .seconds(3)) { [self] in
            session?.channel?.close(promise: nil)
            pending?.channel?.close(promise: nil)
            apply(lifecycle.handle(.closed))
        }
    }

    func completeStop() {
        let now = MonotonicClock.nowNanos()
        shared.withLock { $0.health.finished(nowNanos: now) }
        setState(.stopped)
        stopPromise?.succeed()
        stopPromise = nil
    }

    func setState(_ state: OutputStatus.State) {
        let now = MonotonicClock.nowNanos()
        shared.withLock {
            $0.status.state = state
            if state == .failed { $0.health.failed(nowNanos: now) }
        }
    }
}
