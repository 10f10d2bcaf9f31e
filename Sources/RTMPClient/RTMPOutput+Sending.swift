import Codec
import MediaCore
import NIOCore
import Output
import RTMP

/// The per-frame path on `eventLoop`: take from the send queue while the socket keeps up, turn each item
/// into a chunked message, and watch the link (stalls, adaptive bitrate).
extension RTMPOutput {
    /// Writes queued media while the channel is writable (or everything, when stopping), then flushes.
    func drain(untilEmpty: Bool = false) {
        shared.withLock { $0.drainScheduled = false }
        while let session, session.isPublishing, !packetizers.isEmpty, untilEmpty || session.isWritable {
            if RTMPReconnectRequest.handsOver(replacementReady: lifecycle.replacement == .ready, nextIsKeyFrame: nextIsKeyFrame()) {
                promotePending()
                return
            }
            guard let (item, referenceDrops) = shared.withLock({ shared in shared.queue.pop().map { ($0, shared.queue.drops.reference + shared.queue.drops.key) } })
            else { break }
            if referenceDrops != referenceDropsSeen { tracksLostFrames(referenceDrops) }
            send(item, on: session)
        }
        session?.flush()
    }

    /// The send queue dropped frames that others depend on. It knows nothing of tracks: a keyframe of one
    /// track ends its wait for all of them. So on a multitrack connection every track waits for its
    /// own next keyframe (its sequence header is sent again with it), and no frame goes whose reference was dropped.
    private func tracksLostFrames(_ referenceDrops: Int) {
        referenceDropsSeen = referenceDrops
        guard packetizers.count > 1 else { return }
        sentParameterSets = Array(repeating: nil, count: packetizers.count)
    }

    private func nextIsKeyFrame() -> Bool {
        shared.withLock { $0.queue.peekIsKeyFrame }
    }

    /// Packetizers are mutated in place in their array: a copy would make their reused payload buffers copy on write.
    private func send(_ item: RTMPMediaItem, on session: RTMPSessionHandler) {
        switch item {
        case .video(let frame, _):
            // A track the server does not take (queued before its connect result said so) is not sent.
            guard let track = trackIndex(of: frame), track < packetizers.count else { return }
            if frame.isKeyFrame, frame.parameterSets != sentParameterSets[track] {
                // A new size mid-stream (CPU adaptation): onMetaData says so before the new sequence
                // header, and a reconnect announces it too.
                if packetizers[track].adoptPictureSize(of: frame.parameterSets) {
                    if track == 0 { (stream.width, stream.height) = (packetizers[0].description.width, packetizers[0].description.height) }
                    count(bytes: session.write(media: metadata()), frame: false)
                }
                do {
                    let header = try packetizers[track].sequenceHeader(for: frame, timestamp: clock.currentMillis)
                    count(bytes: session.write(media: header), frame: false)
                    sentParameterSets[track] = frame.parameterSets
                } catch {
                    session.fail(error)
                    return
                }
            }
            guard sentParameterSets[track] != nil else { return }
            let time = clock.video(ptsNanos: frame.ptsNanos, dtsNanos: frame.dtsNanos, track: track)
            let message = packetizers[track].codedFrame(captureTimeStamper?.stamped(frame) ?? frame, timestamp: time.timestamp,
                                                        compositionOffset: time.compositionOffset)
            let written = eventLoop.makePromise(of: Void.self)
            let captureNanos = frame.ptsNanos
            written.futureResult.whenSuccess { [self] in
                let latency = MonotonicClock.nowNanos() - captureNanos
                shared.withLock { $0.latency.record(nanos: latency) }
            }
            count(bytes: session.write(media: message, promise: written), frame: true)
        case .audio(let timestamp, let packet):
            if case .aacSequenceHeader = packet { audioSequenceHeader = packet }
            let message = packetizers[0].audio(packet, timestamp: clock.audio(timestampNanos: timestamp))
            count(bytes: session.write(media: message), frame: false)
        case .aacFrame(let frame):
            let message = packetizers[0].aacFrame(frame.data, timestamp: clock.audio(timestampNanos: frame.ptsNanos))
            count(bytes: session.write(media: message), frame: false)
        }
    }

    private func count(bytes: Int, frame: Bool) {
        shared.withLock {
            $0.status.bytesSent += Int64(bytes)
            if frame { $0.status.framesSent += 1 }
        }
    }

    /// Every 500 ms: judge delivery from the server's acknowledgements and TCP_INFO (replacing a
    /// stalled connection), bring back a paused track, and let adaptive bitrate look at the queue and the socket.
    func checkLink() {
        reportDrops()
        checkPausedTracks()
        guard let session, session.isPublishing, let channel = session.channel else { return }
        let now = MonotonicClock.nowNanos()
        let queuedNanos = shared.withLock { $0.queue.queuedNanos }
        TCPInfo.read(from: channel).assumeIsolated().whenSuccess { [self] info in
            guard session === self.session, session.isPublishing else { return }
            judgeDelivery(of: session, tcp: info, nowNanos: now)
            guard bitrateController != nil else { return }
            let sample = AdaptiveBitrateController.Sample(
                nowNanos: now, queuedMilliseconds: queuedNanos / 1_000_000,
                unsentBytes: info?.notSentBytes, rttMicroseconds: info?.rttMicroseconds)
            guard let bitrate = bitrateController?.update(sample) else { return }
            logger.info("adaptive bitrate", metadata: ["bitrate": "\(bitrate / 1000) kbit/s", "queue": "\(queuedNanos / 1_000_000) ms"])
            shared.withLock { $0.bitrateBitsPerSecond = bitrate }
            limitBitrate(bitrate < configuration.adaptiveBitrate?.targetBitsPerSecond ?? .max ? bitrate : nil)
        }
    }

    /// Logs what the link cost since the last check (at most every 500 ms, while publishing: drops while
    /// reconnecting are expected and only counted), and whether the encoder was asked for a keyframe.
    private func reportDrops() {
        let (drops, requests) = shared.withLock { ($0.queue.drops, $0.keyFrameRequests) }
        defer { (reportedDrops, reportedKeyFrameRequests) = (drops, requests) }
        guard session?.isPublishing == true, drops.video + drops.audio > reportedDrops.video + reportedDrops.audio else { return }
        logger.warning("the link is behind: dropped frames", metadata: [
            "video": "\(drops.video - reportedDrops.video)", "audio": "\(drops.audio - reportedDrops.audio)",
            "total": "\(drops.video + drops.audio)",
            "keyframesRequested": "\(requests - reportedKeyFrameRequests)",
        ])
    }
}
