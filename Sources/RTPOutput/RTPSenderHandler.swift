import Codec
import Logging
import MediaCore
import NIOCore
import Output
import RTP
import SRTP

/// The I/O around the video ``RTPSenderSession`` (and the Opus one, when the stream has audio) on
/// one UDP socket and one event loop: every method runs on the channel's loop, which is the only
/// owner of the sessions, the SRTP contexts and the Sender Report timer.
///
/// Video RTP goes to the destination port, its RTCP (SR + SDES every interval) to port + 1; audio
/// to port + 2 and + 3 (the SDP's second m-line); all from this socket, under one SRTP key (the
/// streams' SSRCs differ, so their keystreams do); RTCP arriving on it (a receiver answering the source of our packets, RFC 4961
/// symmetric RTP) is parsed as feedback. With SRTP, inbound RTCP must authenticate as SRTCP under
/// the stream's key (as ffmpeg's SRTP receiver sends it); anything else is dropped and counted.
///
/// Delivery health (``RTPSenderHandler+Health.swift``) comes from the same inbound RTCP: the video
/// stream's receiver reports, turned into bytes acknowledged by a ``ReceiverReportLedger``.
///
/// Per frame the send path makes one buffer for all datagrams of the frame: packets are written
/// back to back, each protected in place, then handed to the socket as slices of it and flushed
/// once (NIO sends them with `sendmmsg`).
final class RTPSenderHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    /// A stream's addresses: RTP, and RTCP one port up.
    struct Route {
        let rtp: SocketAddress
        let rtcp: SocketAddress
    }

    private var session: RTPSenderSession<H264Payloader>
    private var audio: RTPSenderSession<OpusPayloader>?
    let configuration: RTPOutputConfiguration
    private let video: Route
    private let audioRoute: Route
    private let outboundProtection: SRTPSession?
    private let inboundProtection: SRTPSession?
    private let wallClock = WallClockMapping.sampleNow()
    let requestKeyFrame: @Sendable () -> Void
    private let describe: @Sendable (ParameterSets) -> Void
    private let publish: @Sendable (RTPSenderStatistics, RTPSenderStatistics?) -> Void
    let publishHealth: @Sendable (DeliveryHealth?) -> Void
    let logger: Logger
    private var channel: Channel?
    private var reportTask: RepeatedTask?
    var healthTask: RepeatedTask?
    /// The video packets sent, against the receiver's reports about them.
    private(set) var receiverReports = ReceiverReportLedger()
    var sampling = ReceiverReportSampling()
    /// nil until the receiver's first report: without RTCP there is no evidence either way.
    var health: DeliveryHealth?
    private var describedParameterSets: ParameterSets?
    /// Frames not written while the socket is backed up, and the delta frames after them.
    private var socketGate = SocketBacklogGate()
    /// Reused per frame: where each datagram sits in the frame's send buffer.
    private var datagramBounds: [Range<Int>] = []

    init(session: RTPSenderSession<H264Payloader>, audio: RTPSenderSession<OpusPayloader>?, configuration: RTPOutputConfiguration,
         video: Route, audioRoute: Route,
         requestKeyFrame: @escaping @Sendable () -> Void, describe: @escaping @Sendable (ParameterSets) -> Void,
         publish: @escaping @Sendable (RTPSenderStatistics, RTPSenderStatistics?) -> Void,
         publishHealth: @escaping @Sendable (DeliveryHealth?) -> Void = { _ in }, logger: Logger = Logger(label: "livepush.rtp")) throws(SRTPError) {
        self.session = session
        self.audio = audio
        self.configuration = configuration
        self.video = video
        self.audioRoute = audioRoute
        outboundProtection = try configuration.keyingMaterial.map { key throws(SRTPError) in try SRTPSession(keyingMaterial: key, role: .sender) }
        inboundProtection = try configuration.keyingMaterial.map { key throws(SRTPError) in try SRTPSession(keyingMaterial: key, role: .receiver) }
        self.requestKeyFrame = requestKeyFrame
        self.describe = describe
        self.publish = publish
        self.publishHealth = publishHealth
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        channel = context.channel
        let this = NIOLoopBound(self, eventLoop: context.eventLoop)
        let interval = TimeAmount.nanoseconds(configuration.senderReportIntervalNanos)
        reportTask = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            this.value.sendReport()
        }
        healthTask = context.eventLoop.scheduleRepeatedTask(initialDelay: Self.healthInterval, delay: Self.healthInterval) { _ in
            this.value.judgeDelivery(nowNanos: MonotonicClock.nowNanos())
        }
        context.fireChannelActive()
    }

    /// Packetizes, protects and sends one frame, unless the socket's backlog is past the limit
    /// (then the frame is dropped, and delta frames wait for a key frame: ``SocketBacklogGate``).
    func send(_ frame: EncodedVideoFrame) {
        guard let channel else { return }
        guard socketGate.admits(frame, socketWritable: channel.isWritable, requestKeyFrame: requestKeyFrame) else {
            publishStatistics()
            return
        }
        do {
            let packets = try session.packets(for: frame, allocator: channel.allocator, monotonicNanos: MonotonicClock.nowNanos())
            if frame.parameterSets.isComplete, frame.parameterSets != describedParameterSets {
                describedParameterSets = frame.parameterSets
                describe(frame.parameterSets)
            }
            session.record(bytesSent: try write(packets, to: video.rtp, on: channel))
            for (packet, bounds) in zip(packets, datagramBounds) {
                receiverReports.recordSent(sequenceNumber: packet.header.sequenceNumber, bytes: bounds.count)
            }
        } catch {
            session.record(error: error)
        }
        publishStatistics()
    }

    /// Packetizes (one Opus packet per RTP packet), protects and sends one audio frame.
    func send(_ frame: EncodedAudioFrame) {
        guard let channel, audio != nil else { return }
        do {
            let packets = try audio!.packets(for: frame, allocator: channel.allocator)
            let bytes = try write(packets, to: audioRoute.rtp, on: channel)
            audio?.record(bytesSent: bytes)
        } catch {
            audio?.record(error: error)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var datagram = unwrapInboundIn(data).data
        defer { publishStatistics() }
        guard RTPDemultiplexedPacketKind(datagram: datagram) == .rtcp else {
            session.recordDroppedRTCP()
            return
        }
        do {
            try inboundProtection?.unprotectRTCP(&datagram)
            let compound = try RTCPCompoundPacket(from: &datagram)
            let now = MonotonicClock.nowNanos()
            let response = session.handle(compound, monotonicNanos: now, wallClock: wallClock)
            if !response.retransmissions.isEmpty { session.record(bytesSent: try write(response.retransmissions, to: video.rtp, on: context.channel)) }
            if response.requestKeyFrame { requestKeyFrame() }
            if let reported = response.reportedHighestSequenceNumber {
                receiverReports.acknowledge(extendedHighestSequenceNumber: reported)
            }
            // Audio gets reports and statistics; lost audio is concealed, not retransmitted.
            _ = audio?.handle(compound, monotonicNanos: now, wallClock: wallClock)
        } catch {
            session.recordDroppedRTCP()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP "port unreachable" and the like: UDP keeps going; the receiver may come up later.
        session.record(error: error)
        publishStatistics()
    }

    /// A Sender Report per stream, once it sent something (RFC 3550 §6.4: only senders send SRs).
    func sendReport() {
        sendReports(goodbye: false)
        publishStatistics()
    }

    /// Stops the timer, says BYE and closes the socket.
    func finish() -> EventLoopFuture<Void>? {
        reportTask?.cancel()
        reportTask = nil
        sendReports(goodbye: true)
        publishStatistics()
        finishDelivery(nowNanos: MonotonicClock.nowNanos())
        defer { channel = nil }
        return channel?.close()
    }

    private func sendReports(goodbye: Bool) {
        let now = MonotonicClock.nowNanos()
        report(&session, to: video.rtcp, goodbye: goodbye, nowNanos: now)
        if audio != nil { report(&audio!, to: audioRoute.rtcp, goodbye: goodbye, nowNanos: now) }
    }

    /// SR + SDES (+ BYE) for one stream, if it sent anything.
    private func report<Payloader>(_ stream: inout RTPSenderSession<Payloader>, to address: SocketAddress, goodbye: Bool, nowNanos: Int64) {
        guard stream.statistics.packetsSent > 0 else { return }
        do {
            let compound = goodbye ? try stream.goodbye(monotonicNanos: nowNanos, wallClock: wallClock)
                                   : try stream.senderReport(monotonicNanos: nowNanos, wallClock: wallClock)
            stream.record(bytesSent: try sendRTCP(compound, to: address))
        } catch {
            stream.record(error: error)
        }
    }

    /// Frames not written because the socket was backed up, for the health's "degraded".
    var framesDroppedAtSocket: Int { socketGate.framesDropped }

    private func publishStatistics() {
        var video = session.statistics
        video.framesDroppedAtSocket = socketGate.framesDropped
        video.framesHeldAtSocket = socketGate.framesHeldBack
        publish(video, audio?.statistics)
    }

    /// Sends `packets` to `address`; the bytes written.
    private func write(_ packets: [RTPPacket], to address: SocketAddress, on channel: Channel) throws(SRTPError) -> Int {
        let reserve = outboundProtection == nil ? 0 : SRTPSession.maxRTPTrailerSize
        var datagrams = channel.allocator.buffer(capacity: packets.reduce(0) { $0 + $1.encodedSize + reserve })
        datagramBounds.removeAll(keepingCapacity: true)
        for packet in packets {
            let start = datagrams.writerIndex
            // The readable bytes are this packet alone while it is protected.
            datagrams.moveReaderIndex(to: start)
            packet.write(to: &datagrams)
            try outboundProtection?.protect(rtp: &datagrams)
            datagramBounds.append(start..<datagrams.writerIndex)
        }
        datagrams.moveReaderIndex(to: 0)
        for bounds in datagramBounds {
            guard let datagram = datagrams.getSlice(at: bounds.lowerBound, length: bounds.count) else { continue }
            channel.write(AddressedEnvelope(remoteAddress: address, data: datagram), promise: nil)
        }
        channel.flush()
        return datagrams.readableBytes
    }

    /// Sends one compound packet to `address`; the bytes written.
    private func sendRTCP(_ compound: RTCPCompoundPacket, to address: SocketAddress) throws(SRTPError) -> Int {
        guard let channel else { return 0 }
        let reserve = outboundProtection == nil ? 0 : SRTPSession.maxRTCPTrailerSize
        var buffer = channel.allocator.buffer(capacity: compound.encodedSize + reserve)
        compound.write(to: &buffer)
        try outboundProtection?.protectRTCP(&buffer)
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: buffer), promise: nil)
        return buffer.readableBytes
    }
}
