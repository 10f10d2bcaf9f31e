import Codec
import MediaCore
import NIOCore
import RTP
import SRTP

/// The I/O around an ``RTPSenderSession`` on one UDP socket and one event loop: every method runs
/// on the channel's loop, which is the only owner of the session, the SRTP contexts and the
/// Sender Report timer.
///
/// RTP goes to the destination port, RTCP (SR + SDES every interval) to port + 1, both from this
/// socket; RTCP arriving on it (a receiver answering the source of our packets, RFC 4961
/// symmetric RTP) is parsed as feedback. With SRTP, inbound RTCP must authenticate as SRTCP under
/// the stream's key (as ffmpeg's SRTP receiver sends it); anything else is dropped and counted.
///
/// Per frame the send path makes one buffer for all datagrams of the frame: packets are written
/// back to back, each protected in place, then handed to the socket as slices of it and flushed
/// once (NIO sends them with `sendmmsg`).
final class RTPSenderHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    private var session: RTPSenderSession
    private let configuration: RTPOutputConfiguration
    private let rtpAddress: SocketAddress
    private let rtcpAddress: SocketAddress
    private let outboundProtection: SRTPSession?
    private let inboundProtection: SRTPSession?
    private let wallClock = WallClockMapping.sampleNow()
    private let requestKeyFrame: @Sendable () -> Void
    private let describe: @Sendable (ParameterSets) -> Void
    private let publish: @Sendable (RTPSenderStatistics) -> Void
    private var channel: Channel?
    private var reportTask: RepeatedTask?
    private var describedParameterSets: ParameterSets?
    /// Reused per frame: where each datagram sits in the frame's send buffer.
    private var datagramBounds: [Range<Int>] = []

    init(session: RTPSenderSession, configuration: RTPOutputConfiguration, rtpAddress: SocketAddress, rtcpAddress: SocketAddress,
         requestKeyFrame: @escaping @Sendable () -> Void, describe: @escaping @Sendable (ParameterSets) -> Void,
         publish: @escaping @Sendable (RTPSenderStatistics) -> Void) throws(SRTPError) {
        self.session = session
        self.configuration = configuration
        self.rtpAddress = rtpAddress
        self.rtcpAddress = rtcpAddress
        outboundProtection = try configuration.keyingMaterial.map { key throws(SRTPError) in try SRTPSession(keyingMaterial: key, role: .sender) }
        inboundProtection = try configuration.keyingMaterial.map { key throws(SRTPError) in try SRTPSession(keyingMaterial: key, role: .receiver) }
        self.requestKeyFrame = requestKeyFrame
        self.describe = describe
        self.publish = publish
    }

    func channelActive(context: ChannelHandlerContext) {
        channel = context.channel
        let this = NIOLoopBound(self, eventLoop: context.eventLoop)
        let interval = TimeAmount.nanoseconds(configuration.senderReportIntervalNanos)
        reportTask = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            this.value.sendReport()
        }
        context.fireChannelActive()
    }

    /// Packetizes, protects and sends one frame.
    func send(_ frame: EncodedVideoFrame) {
        guard let channel else { return }
        do {
            let packets = try session.packets(for: frame, allocator: channel.allocator, monotonicNanos: MonotonicClock.nowNanos())
            if frame.parameterSets.isComplete, frame.parameterSets != describedParameterSets {
                describedParameterSets = frame.parameterSets
                describe(frame.parameterSets)
            }
            try write(packets, on: channel)
        } catch {
            session.record(error: error)
        }
        publish(session.statistics)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var datagram = unwrapInboundIn(data).data
        defer { publish(session.statistics) }
        guard RTPDemultiplexedPacketKind(datagram: datagram) == .rtcp else {
            session.recordDroppedRTCP()
            return
        }
        do {
            try inboundProtection?.unprotectRTCP(&datagram)
            let compound = try RTCPCompoundPacket(from: &datagram)
            let response = session.handle(compound, monotonicNanos: MonotonicClock.nowNanos(), wallClock: wallClock)
            if !response.retransmissions.isEmpty { try write(response.retransmissions, on: context.channel) }
            if response.requestKeyFrame { requestKeyFrame() }
        } catch {
            session.recordDroppedRTCP()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // ICMP "port unreachable" and the like: UDP keeps going; the receiver may come up later.
        session.record(error: error)
        publish(session.statistics)
    }

    /// A Sender Report, once something was sent (RFC 3550 §6.4: only senders send SRs).
    func sendReport() {
        guard session.statistics.packetsSent > 0 else { return }
        do {
            try sendRTCP(try session.senderReport(monotonicNanos: MonotonicClock.nowNanos(), wallClock: wallClock))
        } catch {
            session.record(error: error)
        }
        publish(session.statistics)
    }

    /// Stops the timer, says BYE and closes the socket.
    func finish() -> EventLoopFuture<Void>? {
        reportTask?.cancel()
        reportTask = nil
        if session.statistics.packetsSent > 0 {
            do {
                try sendRTCP(try session.goodbye(monotonicNanos: MonotonicClock.nowNanos(), wallClock: wallClock))
            } catch {
                session.record(error: error)
            }
        }
        publish(session.statistics)
        defer { channel = nil }
        return channel?.close()
    }

    private func write(_ packets: [RTPPacket], on channel: Channel) throws(SRTPError) {
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
            channel.write(AddressedEnvelope(remoteAddress: rtpAddress, data: datagram), promise: nil)
        }
        channel.flush()
        session.record(bytesSent: datagrams.readableBytes)
    }

    private func sendRTCP(_ compound: RTCPCompoundPacket) throws(SRTPError) {
        guard let channel else { return }
        let reserve = outboundProtection == nil ? 0 : SRTPSession.maxRTCPTrailerSize
        var buffer = channel.allocator.buffer(capacity: compound.encodedSize + reserve)
        compound.write(to: &buffer)
        try outboundProtection?.protectRTCP(&buffer)
        session.record(bytesSent: buffer.readableBytes)
        channel.writeAndFlush(AddressedEnvelope(remoteAddress: rtcpAddress, data: buffer), promise: nil)
    }
}
