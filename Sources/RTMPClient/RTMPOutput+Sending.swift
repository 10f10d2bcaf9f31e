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
        while let session, session.isPublishing, packetizer != nil, untilEmpty || session.isWritable {
            if RTMPReconnectRequest.handsOver(replacementReady: lifecycle.replacement == .ready, nextIsKeyFrame: nextIsKeyFrame()) {
                promotePending()
                return
            }
            guard let item = shared.withLock({ $0.queue.pop() }) else { break }
            send(item, on: session)
        }
        session?.flush()
    }

    private func nextIsKeyFrame() -> Bool {
        shared.withLock { $0.queue.peekIsKeyFrame }
    }

    private func send(_ item: RTMPMediaItem, on session: RTMPSessionHandler) {
        // Taken out, not copied: a second reference would make its reused payload buffers copy on write.
        guard var packetizer = packetizer.take() else { return }
        defer { self.packetizer = packetizer }
        switch item {
        case .video(let frame, _):
            if frame.isKeyFrame, frame.parameterSets != sentParameterSets {
                // A new size mid-stream (CPU adaptation): onMetaData says so before the new sequence
                // header, and a reconnect announces it too.
                if packetizer.adoptPictureSize(of: frame.parameterSets) {
                    (stream.width, stream.height) = (packetizer.description.width, packetizer.description.height)
                    count(bytes: session.write(media: packetizer.metadata(timestamp: clock.currentMillis)), frame: false)
                }
                do {
                    let header = try packetizer.sequenceHeader(for: frame, timestamp: clock.currentMillis)
                    count(bytes: session.write(media: header), frame: false)
                    sentParameterSets = frame.parameterSets
                } catch {
                    session.fail(error)
                    return
                }
            }
            guard sentParameterSets != nil else { return }
            let time = clock.video(ptsNanos: frame.ptsNanos, dtsNanos: frame.dtsNanos)
            let message = packetizer.codedFrame(captureTimeStamper?.stamped(frame) ?? frame, timestamp: time.timestamp, compositionOffset: time.compositionOffset)
            let written = eventLoop.makePromise(of: Void.self)
            let captureNanos = frame.ptsNanos
            written.futureResult.whenSuccess { [self] in
                let latency = MonotonicClock.nowNanos() - captureNanos
                shared.withLock { $0.latency.record(nanos: latency) }
            }
            count(bytes: session.write(media: message, promise: written), frame: true)
        case .audio(let timestamp, let packet):
            if case .aacSequenceHeader = packet { audioSequenceHeader = packet }
            let message = packetizer.audio(packet, timestamp: clock.audio(timestampNanos: timestamp))
            count(bytes: session.write(media: message), frame: false)
        case .aacFrame(let frame):
            let message = packetizer.aacFrame(frame.data, timestamp: clock.audio(timestampNanos: frame.ptsNanos))
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
    /// stalled connection), and let adaptive bitrate look at the queue and the socket.
    func checkLink() {
        reportDrops()
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
