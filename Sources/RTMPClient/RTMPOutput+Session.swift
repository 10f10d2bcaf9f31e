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
        var configuration = RTMPPublishStateMachine.Configuration(
            url: url, fourCCList: FLVStreamPacketizer.fourCCList(for: self.configuration.stream.codec),
            capabilities: .reconnect)
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
                packetizer = nil
            }
            lost(role: role, error: error)
        }
    }

    /// The server said "publishing": announce the stream, then send from the next keyframe on.
    func startPublishing(messageStreamID: UInt32) {
        guard let session else { return }
        do {
            packetizer = try FLVStreamPacketizer(description: stream, messageStreamID: messageStreamID)
        } catch {
            session.fail(error)
            return
        }
        let actions = lifecycle.handle(.connected)
        keyInUse.connected()
        sentParameterSets = nil
        session.write(media: packetizer!.metadata(timestamp: clock.currentMillis))
        if let audioSequenceHeader, let packetizer {
            session.write(media: packetizer.audio(audioSequenceHeader, timestamp: clock.currentMillis))
        }
        session.flush()
        let now = MonotonicClock.nowNanos()
        let reconnects = lifecycle.reconnects
        shared.withLock {
            $0.health.connected(nowNanos: now)
            $0.queue.restartAtKeyFrame()
            _ = $0.queue.takeKeyFrameRequest()
            $0.status.reconnects = reconnects
            $0.status.stateReason = nil
        }
        apply(actions)
        logger.info("publishing", metadata: ["url": "\(url.redacted)", "connection": "\(lifecycle.connectionsLive)"])
        requestKeyFrame()
        drain()
    }

    /// The pending connection takes over: the old one (if any) says goodbye, the new one starts at a keyframe.
    func promotePending() {
        guard let next = pending, lifecycle.replacement == .ready, let streamID = next.publishingStreamID else { return }
        apply(lifecycle.handle(.replaced))
        session?.stop()
        session = next
        pending = nil
        startPublishing(messageStreamID: streamID)
    }

    /// `NetConnection.Connect.ReconnectRequest`: open the new server beside the old and switch at a
    /// keyframe. The new URL carries the stream key, so it must pass `follow_redirects` against the
    /// configured URL (``RedirectPolicy``: never rtmps → rtmp; another host only when allowed);
    /// a refused move is logged and the stream stays where it is.
    func moveOnRequest(tcURL: String?) {
        if let tcURL {
            let target: RTMPURL
            do {
                target = try RTMPURL("\(tcURL)/\(url.streamKey)")
            } catch {
                logger.warning("ignoring a reconnect request with an unusable tcUrl", metadata: ["error": "\(error)"])
                return apply(lifecycle.handle(.replacementLost(nil)))
            }
            let origin = configuration.url
            if let refusal = configuration.followRedirects.refusal(from: .init(usesTLS: origin.scheme.usesTLS, host: origin.host),
                                                                   to: .init(usesTLS: target.scheme.usesTLS, host: target.host)) {
                logger.warning("not following the server's reconnect request: \(refusal)", metadata: ["to": "\(target.redacted)"])
                shared.withLock { $0.status.lastError = "reconnect request to \(target.redacted) refused: \(refusal)" }
                return apply(lifecycle.handle(.replacementLost(nil)))
            }
            url = target
        }
        logger.info("server asked us to reconnect", metadata: ["to": "\(url.redacted)"])
        apply([.connectReplacement])
    }

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
        apply(lifecycle.handle(role == .active ? .lost(error) : .replacementLost(error)))
    }

    /// The key was refused as in use: soon after a loss of ours, the seconds until the next try
    /// (``KeyInUseRetry``); nil for the normal backoff. The status says which, and the log says why.
    func retrySoon(refused error: RTMPClientError) -> Double? {
        let decision = keyInUse.refusedInUse(atNanos: MonotonicClock.nowNanos())
        let reason = keyInUse.stateReason
        shared.withLock { $0.status.stateReason = reason }
        switch decision {
        case .retry(let seconds, let refusal):
            logger.info("key in use, probably by our own lost session until the server drops it; retrying soon",
                        metadata: ["in": "\(String(format: "%.2f", seconds)) s", "refusal": "\(refusal)"])
            return seconds
        case .backoff:
            if case .expired = keyInUse.phase {
                logger.warning("\(reason ?? "key still in use")", metadata: ["error": "\(error)"])
            }
            return nil
        }
    }

    func finish(_ promise: EventLoopPromise<Void>) {
        guard !lifecycle.isStopping else { return promise.succeed() }
        stopPromise = promise
        apply(lifecycle.handle(.stop))
    }

    /// Stop: send what is queued on a publishing connection and say goodbye; abort the rest.
    func close() {
        monitor?.cancel()
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
