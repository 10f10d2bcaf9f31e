import Codec
import Logging
import MediaCore
import NIOCore
import Output
import RTP
import SRTP

/// The I/O around one ``RTPSendSession`` (the video stream, and the Opus one when the stream has
/// audio) on one UDP socket and one event loop: every method runs on the channel's loop, which is
/// the only owner of the session and of the Sender Report and health timers.
///
/// Video RTP goes to the destination port, its RTCP (SR + SDES every interval) to port + 1; audio
/// to port + 2 and + 3 (the SDP's second m-line); all from this socket, under one SRTP key (the
/// streams' SSRCs differ, so their keystreams do); RTCP arriving on it (a receiver answering the source of our packets, RFC 4961
/// symmetric RTP) is parsed as feedback. With SRTP, inbound RTCP must authenticate as SRTCP under
/// the stream's key (as ffmpeg's SRTP receiver sends it); anything else is dropped and counted.
///
/// Delivery health (``RTPSenderHandler+Health.swift``) comes from the same inbound RTCP: the video
/// stream's receiver reports, turned into bytes acknowledged by the session's ``ReceiverReportLedger``.
///
/// The session writes each frame's datagrams as slices of one buffer; they are flushed once per
/// frame (NIO sends them with `sendmmsg`).
final class RTPSenderHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    /// A stream's addresses: RTP, and RTCP one port up.
    struct Route {
        let rtp: SocketAddress
        let rtcp: SocketAddress
    }

    /// Where the session's datagrams go: the socket, once it is active, at each route's address.
    private final class Outlet {
        var channel: Channel?
        let video: Route
        let audio: Route

        init(video: Route, audio: Route) {
            self.video = video
            self.audio = audio
        }

        func write(_ datagram: ByteBuffer, route: RTPSendSession.Route) {
            let address: SocketAddress
            switch route {
            case .videoRTP: address = video.rtp
            case .videoRTCP: address = video.rtcp
            case .audioRTP: address = audio.rtp
            case .audioRTCP: address = audio.rtcp
            }
            channel?.write(AddressedEnvelope(remoteAddress: address, data: datagram), promise: nil)
        }
    }

    private let session: RTPSendSession
    private let outlet: Outlet
    let configuration: RTPOutputConfiguration
    let requestKeyFrame: @Sendable () -> Void
    private let describe: @Sendable (ParameterSets) -> Void
    private let publish: @Sendable (RTPSendSession.Statistics) -> Void
    let publishHealth: @Sendable (DeliveryHealth?) -> Void
    let logger: Logger
    private var reportTask: RepeatedTask?
    var healthTask: RepeatedTask?
    var sampling = ReceiverReportSampling()
    /// nil until the receiver's first report: without RTCP there is no evidence either way.
    var health: DeliveryHealth?
    private var describedParameterSets: ParameterSets?

    init(session video: RTPSenderSession<H264Payloader>, audio: RTPSenderSession<OpusPayloader>?, configuration: RTPOutputConfiguration,
         video videoRoute: Route, audioRoute: Route,
         requestKeyFrame: @escaping @Sendable () -> Void, describe: @escaping @Sendable (ParameterSets) -> Void,
         publish: @escaping @Sendable (RTPSendSession.Statistics) -> Void,
         publishHealth: @escaping @Sendable (DeliveryHealth?) -> Void = { _ in }, logger: Logger = Logger(label: "livepush.rtp")) throws {
        let outlet = Outlet(video: videoRoute, audio: audioRoute)
        var settings = RTPSendSession.Configuration()
        // Plain RTP sends from the first frame; the report timer is this handler's.
        settings.startsAtKeyFrame = false
        settings.senderReportIntervalNanos = configuration.senderReportIntervalNanos
        settings.captureTime = configuration.captureTime
        session = try RTPSendSession(
            video: video, audio: audio,
            outbound: try configuration.keyingMaterial.map { key throws(SRTPError) in try SRTPSession(keyingMaterial: key, role: .sender) },
            inbound: try configuration.keyingMaterial.map { key throws(SRTPError) in try SRTPSession(keyingMaterial: key, role: .receiver) },
            configuration: settings) { datagram, route in outlet.write(datagram, route: route) }
        self.outlet = outlet
        self.configuration = configuration
        self.requestKeyFrame = requestKeyFrame
        self.describe = describe
        self.publish = publish
        self.publishHealth = publishHealth
        self.logger = logger
    }

    func channelActive(context: ChannelHandlerContext) {
        outlet.channel = context.channel
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
        guard let channel = outlet.channel else { return }
        if frame.parameterSets.isComplete, frame.parameterSets != describedParameterSets, channel.isWritable {
            describedParameterSets = frame.parameterSets
            describe(frame.parameterSets)
        }
        if session.send(frame, nowNanos: MonotonicClock.nowNanos(), socketWritable: channel.isWritable) { requestKeyFrame() }
        channel.flush()
        publishStatistics()
    }

    /// Packetizes (one Opus packet per RTP packet), protects and sends one audio frame.
    func send(_ frame: EncodedAudioFrame) {
        guard let channel = outlet.channel else { return }
        session.send(frame, nowNanos: MonotonicClock.nowNanos())
        channel.flush()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let feedback = session.receiveRTCP(unwrapInboundIn(data).data, nowNanos: MonotonicClock.nowNanos())
        context.channel.flush()
        if feedback.requestKeyFrame { requestKeyFrame() }
        publishStatistics()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP "port unreachable" and the like: UDP keeps going; the receiver may come up later.
        session.record(error: error)
        publishStatistics()
    }

    /// A Sender Report per stream, once it sent something (RFC 3550 §6.4: only senders send SRs).
    func sendReport() {
        session.sendReports(nowNanos: MonotonicClock.nowNanos())
        outlet.channel?.flush()
        publishStatistics()
    }

    /// Stops the timer, says BYE and closes the socket.
    func finish() -> EventLoopFuture<Void>? {
        reportTask?.cancel()
        reportTask = nil
        session.close(nowNanos: MonotonicClock.nowNanos())
        outlet.channel?.flush()
        publishStatistics()
        finishDelivery(nowNanos: MonotonicClock.nowNanos())
        defer { outlet.channel = nil }
        return outlet.channel?.close()
    }

    /// The video packets sent, against the receiver's reports about them.
    var receiverReports: ReceiverReportLedger { session.videoReceiverReports }

    /// Frames not written because the socket was backed up, for the health's "degraded".
    var framesDroppedAtSocket: Int { session.statistics.framesDroppedAtSocket }

    private func publishStatistics() { publish(session.statistics) }
}
