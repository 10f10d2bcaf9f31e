import Codec
import Logging
import MediaCore
import NIOCore
import Output
import RTPOutput
import WebRTC

/// The one UDP socket all WHEP viewers share, on one event loop that owns every viewer:
/// datagrams are routed by ICE ufrag (STUN) or by the 5-tuple a valid check established
/// (DTLS, SRTCP); anything else is dropped. A repeating tick drives the viewers' timers.
final class WHEPUDPHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    static let tickInterval = TimeAmount.milliseconds(50)

    private var demultiplexer = ICEDemultiplexer<String>()
    private var viewers: [String: WHEPViewer] = [:]
    private let logger = Logger(label: "livepush.whep")
    /// The HTTP client address each viewer's offer came from, for the per-address limit.
    private var clientAddresses: [String: String] = [:]
    private var channel: Channel?
    private var tickTask: RepeatedTask?
    /// The viewers' pacers' next step, while any has packets waiting (one timer for all viewers).
    private var pacingTask: Scheduled<Void>?
    private var pacingDeadlineNanos: Int64?
    /// Asks one rendition's encoder for a key frame.
    private let requestKeyFrame: @Sendable (_ rendition: Int) -> Void
    private let publish: @Sendable (WHEPStatistics) -> Void
    private var statistics = WHEPStatistics()
    /// What viewers already gone were sent, so the totals survive them.
    private var closedViewerTotals = WHEPStatistics.Totals()
    /// Frames not written while the shared socket is backed up, and the delta frames after them;
    /// one per rendition, since each has its own key frames.
    private var socketGates: [SocketBacklogGate]
    /// Each frame's payloads, packetized once for every viewer (their histories keep slices of them).
    private var payloads = H264PayloadSharing()
    /// Viewers' REMB estimates → the shared encoder's bitrate, when the owner asked for it.
    private var bitrate: (policy: REMBBitratePolicy, apply: @Sendable (Int) -> Void)?

    init(requestKeyFrame: @escaping @Sendable (_ rendition: Int) -> Void, renditionCount: Int = 1, publish: @escaping @Sendable (WHEPStatistics) -> Void,
         bitrate: (policy: REMBBitratePolicy, apply: @Sendable (Int) -> Void)? = nil) {
        self.requestKeyFrame = requestKeyFrame
        socketGates = (0..<max(1, renditionCount)).map { _ in SocketBacklogGate() }
        self.publish = publish
        self.bitrate = bitrate
        statistics.encoderBitrateBitsPerSecond = bitrate?.policy.currentBitsPerSecond
    }

    var localAddress: TransportAddress? { channel?.localAddress.flatMap(TransportAddress.init(socketAddress:)) }

    func channelActive(context: ChannelHandlerContext) {
        channel = context.channel
        let this = NIOLoopBound(self, eventLoop: context.eventLoop)
        tickTask = context.eventLoop.scheduleRepeatedTask(initialDelay: Self.tickInterval, delay: Self.tickInterval) { _ in
            this.value.tick()
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard let remote = TransportAddress(socketAddress: envelope.remoteAddress), let local = localAddress else { return }
        let tuple = ICEDemultiplexer<String>.FiveTuple(local: local, remote: remote)
        guard let id = demultiplexer.route(envelope.data, tuple: tuple), let viewer = viewers[id] else {
            statistics.datagramsDropped += 1
            return
        }
        let now = MonotonicClock.nowNanos()
        apply(viewer.receive(envelope.data, from: remote, nowNanos: UInt64(now)), of: viewer, tuple: tuple)
        schedulePacing(nowNanos: now)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP errors from a vanished viewer: consent freshness will clean it up.
        statistics.lastError = "\(error)"
    }

    var viewerCount: Int { viewers.count }

    /// Viewers whose offers came from `address`.
    func viewerCount(from address: String) -> Int { clientAddresses.values.reduce(0) { $0 + ($1 == address ? 1 : 0) } }

    /// Adds a viewer created by a POST from `clientAddress`; its checks route by its ufrag from now on.
    func add(_ viewer: WHEPViewer, from clientAddress: String?) {
        viewers[viewer.id] = viewer
        clientAddresses[viewer.id] = clientAddress
        demultiplexer.register(localUfrag: viewer.localUfrag, for: viewer.id)
        logger.info("WHEP viewer joined", metadata: ["viewer": "\(viewer.id)", "latency": "\(viewer.lowLatency ? "low" : "default")"])
        publishStatistics()
    }

    /// A DELETE: close_notify to the viewer, then forget it. False if unknown.
    func remove(id: String) -> Bool {
        guard let viewer = viewers[id] else { return false }
        viewer.close(reason: "DELETE")
        forget(id)
        return true
    }

    /// Sends one frame of the shared encode to every connected viewer, unless the socket is backed
    /// up (every viewer shares it): then the frame is dropped, and delta frames wait for a key frame.
    func broadcast(_ frame: EncodedVideoFrame) {
        let rendition = socketGates.indices.contains(frame.rendition) ? frame.rendition : 0
        let admitted = socketGates[rendition].admits(frame, socketWritable: channel?.isWritable ?? true) {
            statistics.keyFramesRequested += 1
            requestKeyFrame(rendition)
        }
        statistics.framesDroppedAtSocket = socketGates.reduce(0) { $0 + $1.framesDropped }
        statistics.framesHeldAtSocket = socketGates.reduce(0) { $0 + $1.framesHeldBack }
        guard admitted else { return }
        let now = MonotonicClock.nowNanos()
        payloads.beginFrame()
        for viewer in viewers.values { apply(viewer.send(frame, sharing: &payloads, nowNanos: now), of: viewer, tuple: nil) }
        channel?.flush()
        schedulePacing(nowNanos: now)
        statistics.framesBroadcast += 1
    }

    /// Sends one Opus frame to every connected viewer that negotiated audio.
    func broadcast(_ frame: EncodedAudioFrame) {
        let now = MonotonicClock.nowNanos()
        for viewer in viewers.values { viewer.send(frame, nowNanos: now) }
        channel?.flush()
        schedulePacing(nowNanos: now)
        statistics.audioFramesBroadcast += 1
    }

    /// Closes every viewer, stops the timer and the socket.
    func finish() -> EventLoopFuture<Void>? {
        tickTask?.cancel()
        pacingTask?.cancel()
        for id in Array(viewers.keys) { _ = remove(id: id) }
        channel?.flush()
        defer { channel = nil }
        return channel?.close()
    }

    /// How the viewer's outgoing datagrams reach the socket.
    func transmit(_ buffer: ByteBuffer, to address: TransportAddress) {
        guard let channel, let socketAddress = try? address.socketAddress else { return }
        channel.write(AddressedEnvelope(remoteAddress: socketAddress, data: buffer), promise: nil)
    }

    /// Schedules the pacers' next step at the earliest time a viewer's pacer asks for, unless a
    /// step is already due by then.
    private func schedulePacing(nowNanos: Int64) {
        guard let eventLoop = channel?.eventLoop else { return }
        guard let next = viewers.values.compactMap({ $0.nextPacingNanos(nowNanos: nowNanos) }).min() else { return }
        if let deadline = pacingDeadlineNanos, deadline <= next { return }
        pacingTask?.cancel()
        pacingDeadlineNanos = next
        let this = NIOLoopBound(self, eventLoop: eventLoop)
        pacingTask = eventLoop.scheduleTask(in: .nanoseconds(max(0, next - nowNanos))) { this.value.paceViewers() }
    }

    /// One pacing step: every viewer sends what its budget allows, then the next step is scheduled.
    private func paceViewers() {
        pacingTask = nil
        pacingDeadlineNanos = nil
        let now = MonotonicClock.nowNanos()
        for viewer in viewers.values { _ = viewer.pace(nowNanos: now) }
        channel?.flush()
        schedulePacing(nowNanos: now)
    }

    private func tick() {
        let now = UInt64(MonotonicClock.nowNanos())
        for viewer in Array(viewers.values) {
            apply(viewer.tick(nowNanos: now), of: viewer, tuple: nil)
        }
        if let change = bitrate?.policy.decide(nowNanos: Int64(now)) {
            statistics.encoderBitrateBitsPerSecond = change
            statistics.bitrateChanges += 1
            statistics.lowestEncoderBitrateBitsPerSecond = min(change, statistics.lowestEncoderBitrateBitsPerSecond ?? change)
            bitrate?.apply(change)
        }
        channel?.flush()
        // A viewer's tick may have started a probe: its padding leaves through the pacer.
        schedulePacing(nowNanos: Int64(now))
        publishStatistics()
    }

    private func apply(_ signals: [WHEPViewer.Signal], of viewer: WHEPViewer, tuple: ICEDemultiplexer<String>.FiveTuple?) {
        for signal in signals {
            switch signal {
            case .bind(let address):
                guard let local = tuple?.local ?? localAddress else { continue }
                demultiplexer.bind(.init(local: local, remote: address), to: viewer.id)
            case .requestKeyFrame(let rendition):
                statistics.keyFramesRequested += 1
                requestKeyFrame(rendition)
            case .bitrateEstimate(let estimate):
                statistics.rembReceived += 1
                bitrate?.policy.record(estimateBitsPerSecond: estimate, viewer: viewer.id)
            case .closed(let reason):
                statistics.lastClosedReason = reason
                if reason.hasPrefix(WHEPViewer.stallReasonPrefix) {
                    statistics.viewersClosedStalled += 1
                    logger.warning("WHEP viewer \(viewer.id) \(reason); closed (its player may connect again)")
                } else {
                    logger.info("WHEP viewer left", metadata: ["viewer": "\(viewer.id)", "reason": "\(reason)"])
                }
                forget(viewer.id)
            }
        }
        channel?.flush()
    }

    private func forget(_ id: String) {
        if let media = viewers[id]?.mediaStatistics { closedViewerTotals.add(media) }
        viewers[id] = nil
        clientAddresses[id] = nil
        demultiplexer.remove(id)
        bitrate?.policy.remove(viewer: id)
        publishStatistics()
    }

    private func publishStatistics() {
        statistics.viewers = viewers.count
        statistics.connectedViewers = viewers.values.filter(\.isConnected).count
        statistics.viewerStatistics = viewers.mapValues(\.statistics)
        statistics.viewerHealth = viewers.compactMapValues(\.deliveryState)
        statistics.viewerAudioStatistics = viewers.compactMapValues(\.audioStatistics)
        let now = MonotonicClock.nowNanos()
        statistics.viewerLinks = viewers.filter { $0.value.isConnected }.mapValues { $0.link(nowNanos: now) }
        if let link = statistics.viewerLinks.values.first(where: { $0.estimateBitsPerSecond != nil }), let bits = link.estimateBitsPerSecond {
            statistics.lastViewerEstimate = (bits, link.estimateSource)
        }
        statistics.totals = viewers.values.compactMap(\.mediaStatistics).reduce(into: closedViewerTotals) { $0.add($1) }
        publish(statistics)
    }
}
