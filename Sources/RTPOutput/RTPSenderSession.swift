import Codec
import MediaCore
import NIOCore
import RTP

/// The state of one RTP sender (one SSRC), as a pure value: frames in, RTP packets out; RTCP in,
/// retransmissions and key frame requests out; Sender Reports on demand. Time and the wall-clock
/// mapping are parameters, so tests drive it without sockets or clocks. The I/O around it
/// (``RTPSenderHandler``, the WebRTC media sender) owns one per stream on its event loop.
///
/// Generic over the payload format: H.264 video (``H264Payloader``, frames from the shared
/// encode) and Opus audio (``OpusPayloader``); reports, NACK history and feedback are the same.
public struct RTPSenderSession<Payloader: RTPPayloader>: Sendable {
    /// What a feedback packet asks the sender to do.
    public struct FeedbackResponse: Sendable, Equatable {
        /// Packets to send again (plain retransmission: same SSRC and sequence number, as RFC 4585
        /// allows without RTX; WebRTC outputs wrap them with ``RTXPacketizer`` instead).
        public var retransmissions: [RTPPacket] = []
        /// A PLI/FIR got past the ``KeyFrameRequestLimiter``: ask the encoder for an IDR.
        public var requestKeyFrame = false
        /// A REMB for our SSRC in this packet: the receiver's estimate of what the path carries.
        public var estimatedBitrateBitsPerSecond: UInt64?
        /// The extended highest sequence number of the last reception report about our SSRC in
        /// this packet, for a ``ReceiverReportLedger``.
        public var reportedHighestSequenceNumber: UInt32?
    }

    public let cname: String
    public private(set) var packetizer: RTPPacketizer<Payloader>
    public private(set) var statistics = RTPSenderStatistics()
    private var history: RTPSendHistory
    private var limiter: KeyFrameRequestLimiter
    /// The peer's last receiver reference time (RFC 3611 RRTR): a receive-only peer sends it in
    /// place of a Sender Report, and every report of ours answers it with DLRR so it can measure
    /// the round trip (``ExtendedReport``).
    private var receiverReference: (ssrc: UInt32, lastReport: UInt32, arrivalNanos: Int64)?

    public init(packetizer: RTPPacketizer<Payloader>, cname: String,
                historyCapacity: Int = RTPSendHistory.defaultCapacity, limiter: KeyFrameRequestLimiter = KeyFrameRequestLimiter()) {
        self.packetizer = packetizer
        self.cname = cname
        history = RTPSendHistory(capacity: historyCapacity)
        self.limiter = limiter
    }

    public var ssrc: UInt32 { packetizer.ssrc }

    /// How long a retransmitted packet is not sent again, before receiver reports give a round trip.
    static var defaultResendIntervalNanos: Int64 { 100_000_000 }
    /// Never shorter than this, however short the measured round trip (loopback's is under 1 ms).
    static var minimumResendIntervalNanos: Int64 { 10_000_000 }

    /// A packet still in the NACK history (probe padding re-sends recent ones on the RTX stream).
    public func sentPacket(sequenceNumber: UInt16) -> RTPPacket? { history.packet(sequenceNumber: sequenceNumber) }

    /// Packetizes one frame and remembers its packets for NACKs, sent at `sentNanos`; lets go of
    /// those too old for a NACK to still ask for (``RTPSendHistory/keepNanos(roundTripNanos:)``).
    mutating func packets(for frame: Payloader.Frame, captureTimeNanos: Int64, sentNanos: Int64,
                          extensions: FrameHeaderExtensions) throws(RTPError) -> [RTPPacket] {
        remember(try packetizer.packetize(frame, captureTimeNanos: captureTimeNanos, extensions: extensions), sentNanos: sentNanos)
    }

    /// Counts one frame's packets and keeps them for NACKs (letting go of the ones too old).
    private mutating func remember(_ packets: [RTPPacket], sentNanos: Int64) -> [RTPPacket] {
        for packet in packets {
            history.insert(packet, sentNanos: sentNanos)
            statistics.payloadOctetsSent += packet.payload.readableBytes
        }
        history.forget(sentBefore: sentNanos - RTPSendHistory.keepNanos(roundTripNanos: statistics.roundTripTimeNanos))
        statistics.packetsSent += packets.count
        statistics.framesSent += 1
        return packets
    }

    /// SR + SDES CNAME (RFC 3550 §6.1: every compound packet starts with a report and carries a
    /// CNAME), and an XR with DLRR once the peer sent an RRTR. The NTP and RTP timestamps name the
    /// same instant, `monotonicNanos`, which is on the capture clock the RTP timestamps come from.
    public mutating func senderReport(monotonicNanos: Int64, wallClock: WallClockMapping) throws(RTPError) -> RTCPCompoundPacket {
        let report = try SenderReport(
            ssrc: ssrc, ntpTimestamp: NTPTimestamp(unixNanos: wallClock.wallClockNanos(forMonotonic: monotonicNanos)),
            rtpTimestamp: packetizer.rtpTimestamp(captureTimeNanos: monotonicNanos),
            packetCount: UInt32(truncatingIfNeeded: statistics.packetsSent),
            octetCount: UInt32(truncatingIfNeeded: statistics.payloadOctetsSent))
        statistics.senderReportsSent += 1
        var packets: [RTCPPacket] = [.senderReport(report), .sourceDescription(try SourceDescription(ssrc: ssrc, cname: cname))]
        if let reference = receiverReference {
            let answer = ExtendedReport.DelaySinceLastReceiverReport(
                ssrc: reference.ssrc, lastReceiverReport: reference.lastReport,
                delay: ExtendedReport.DelaySinceLastReceiverReport.delay(nanos: monotonicNanos - reference.arrivalNanos))
            packets.append(.extendedReport(try ExtendedReport(ssrc: ssrc, blocks: [.delaySinceLastReceiverReport([answer])])))
            statistics.receiverReferenceTimesAnswered += 1
        }
        return RTCPCompoundPacket(packets: packets)
    }

    /// The last report, with BYE (RFC 3550 §6.6), for a clean stop.
    public mutating func goodbye(monotonicNanos: Int64, wallClock: WallClockMapping) throws(RTPError) -> RTCPCompoundPacket {
        var compound = try senderReport(monotonicNanos: monotonicNanos, wallClock: wallClock)
        compound.packets.append(.goodbye(try Goodbye(sources: [ssrc], reason: "stream ended")))
        return compound
    }

    /// Applies one received compound RTCP packet: reception reports about our SSRC update the
    /// statistics (RTT needs `wallClock` to date the arrival), NACKs yield retransmissions from the
    /// history, PLI/FIR pass through the limiter, REMB is recorded. Anything about other SSRCs is ignored.
    public mutating func handle(_ compound: RTCPCompoundPacket, monotonicNanos: Int64, wallClock: WallClockMapping) -> FeedbackResponse {
        var response = FeedbackResponse()
        let arrival = NTPTimestamp(unixNanos: wallClock.wallClockNanos(forMonotonic: monotonicNanos))
        for packet in compound.packets {
            switch packet {
            case .receiverReport(let report):
                apply(report.reports, arrival: arrival, to: &response)
            case .senderReport(let report):
                apply(report.reports, arrival: arrival, to: &response)
            case .genericNACK(let nack) where nack.mediaSSRC == ssrc:
                statistics.nacksReceived += 1
                // A packet already sent again within a round trip is not sent again: the copy may
                // still be on its way, and behind a narrow link repeats only fill it further.
                let interval = max(statistics.roundTripTimeNanos ?? Self.defaultResendIntervalNanos, Self.minimumResendIntervalNanos)
                for sequenceNumber in nack.lostSequenceNumbers {
                    switch history.packetToResend(sequenceNumber: sequenceNumber, nowNanos: monotonicNanos, minimumIntervalNanos: interval) {
                    case .resend(let original):
                        response.retransmissions.append(original)
                        statistics.packetsRetransmitted += 1
                    case .unavailable:
                        statistics.retransmissionsUnavailable += 1
                    case .tooSoon:
                        statistics.retransmissionsTooSoon += 1
                    }
                }
            case .extendedReport(let report):
                if let time = report.receiverReferenceTime {
                    receiverReference = (report.ssrc, time.middle32, monotonicNanos)
                    statistics.receiverReferenceTimesReceived += 1
                }
            case .receiverEstimatedMaximumBitrate(let remb) where remb.ssrcs.isEmpty || remb.ssrcs.contains(ssrc):
                statistics.estimatedBitrateBitsPerSecond = remb.bitrateBitsPerSecond
                response.estimatedBitrateBitsPerSecond = remb.bitrateBitsPerSecond
            default:
                for request in KeyFrameRequest.requests(in: packet, mediaSSRC: ssrc) {
                    statistics.keyFrameRequestsReceived += 1
                    if limiter.evaluate(request, nowNanos: monotonicNanos) == .requestKeyFrame {
                        statistics.keyFramesRequested += 1
                        response.requestKeyFrame = true
                    }
                }
            }
        }
        return response
    }

    /// Counts what the I/O layer did beside packetizing: bytes on the wire, bad RTCP, errors.
    public mutating func record(bytesSent: Int) { statistics.bytesSent += Int64(bytesSent) }
    public mutating func recordDroppedRTCP() { statistics.rtcpDropped += 1 }
    public mutating func record(error: any Error) { statistics.lastError = "\(error)" }

    private mutating func apply(_ blocks: [ReceptionReport], arrival: NTPTimestamp, to response: inout FeedbackResponse) {
        for block in blocks where block.ssrc == ssrc {
            statistics.receiverReportsReceived += 1
            response.reportedHighestSequenceNumber = block.extendedHighestSequenceNumber
            statistics.fractionLost = Double(block.fractionLost) / 256
            statistics.cumulativeLost = Int(block.cumulativeLost)
            statistics.jitterMillis = Double(block.jitter) * 1000 / Double(Payloader.clock.ticksPerSecond)
            if let roundTrip = block.roundTripTimeNanos(arrival: arrival) { statistics.roundTripTimeNanos = roundTrip }
        }
    }
}

extension RTPSenderSession where Payloader == H264Payloader {
    /// The blocks abs-capture-time goes in (``CaptureTimeExtensionBlocks``) and the frame's capture time for them.
    public typealias CaptureTime = (blocks: CaptureTimeExtensionBlocks, value: AbsoluteCaptureTime)

    /// The packets of one encoded frame, remembered for NACKs. The frame's bytes are copied once
    /// into one buffer; every payload is a slice of it or of the payloader's per-frame scratch.
    /// `extensions` says which header extension block goes on which packet (the transport-wide
    /// sequence number template on every packet, the video orientation on the last, when
    /// negotiated); with `captureTime`, the first packet's block (and a lone packet's) is written
    /// into the same buffer with the frame's capture time (``CaptureTimeExtensionBlocks``).
    public mutating func packets(for frame: EncodedVideoFrame, allocator: ByteBufferAllocator, monotonicNanos: Int64,
                                 extensions: FrameHeaderExtensions = FrameHeaderExtensions(),
                                 captureTime: CaptureTime? = nil) throws(RTPError) -> [RTPPacket] {
        var bytes = allocator.buffer(capacity: frame.data.count + (captureTime == nil ? 0 : CaptureTimeExtensionBlocks.maxBytes))
        bytes.writeBytes(frame.data)
        // Written before the payloads are sliced off: a write after would copy the whole buffer.
        let extensions = try Self.extensions(extensions, captureTime: captureTime, of: frame, writtenTo: &bytes)
        let packets = try packets(for: frame.nalUnits(in: bytes), captureTimeNanos: frame.ptsNanos, sentNanos: monotonicNanos, extensions: extensions)
        if frame.isKeyFrame { limiter.keyFrameSent(nowNanos: monotonicNanos) }
        return packets
    }

    /// The packets of one encoded frame around payloads packetized once for every sender of the
    /// output (``H264PayloadSharing``), remembered for NACKs: the history holds slices of the
    /// shared payloads, not copies. Only the headers, and the capture time's blocks (in a small
    /// buffer of their own), are this sender's.
    public mutating func packets(for frame: EncodedVideoFrame, sharedPayloads: [ByteBuffer], allocator: ByteBufferAllocator,
                                 monotonicNanos: Int64, extensions: FrameHeaderExtensions = FrameHeaderExtensions(),
                                 captureTime: CaptureTime? = nil) throws(RTPError) -> [RTPPacket] {
        var extensions = extensions
        if captureTime != nil {
            var blocks = allocator.buffer(capacity: CaptureTimeExtensionBlocks.maxBytes)
            extensions = try Self.extensions(extensions, captureTime: captureTime, of: frame, writtenTo: &blocks)
        }
        let packets = remember(packetizer.packetize(payloads: sharedPayloads, captureTimeNanos: frame.ptsNanos, extensions: extensions),
                               sentNanos: monotonicNanos)
        if frame.isKeyFrame { limiter.keyFrameSent(nowNanos: monotonicNanos) }
        return packets
    }

    /// `extensions` with the first (and only) packet's blocks carrying the capture time, written at the end of `buffer`.
    private static func extensions(_ extensions: FrameHeaderExtensions, captureTime: CaptureTime?, of frame: EncodedVideoFrame,
                                   writtenTo buffer: inout ByteBuffer) throws(RTPError) -> FrameHeaderExtensions {
        guard let captureTime else { return extensions }
        var extensions = extensions
        let orientation = VideoOrientation(rotation: VideoOrientation.Rotation(frame.rotation))
        (extensions.first, extensions.only) = try captureTime.blocks.write(captureTime.value, orientation: orientation, to: &buffer)
        return extensions
    }
}

extension RTPSenderSession where Payloader == OpusPayloader {
    /// The one packet of an Opus frame (RFC 7587), timestamped on the 48 kHz clock from the capture
    /// time, so audio and video share the capture timeline and the Sender Reports' NTP mapping.
    /// `headerExtension` (the transport-wide sequence number template, when negotiated) goes on it.
    public mutating func packets(for frame: EncodedAudioFrame, allocator: ByteBufferAllocator, monotonicNanos: Int64,
                                 headerExtension: RTPHeaderExtension? = nil) throws(RTPError) -> [RTPPacket] {
        var bytes = allocator.buffer(capacity: frame.data.count)
        bytes.writeBytes(frame.data)
        return try packets(for: bytes, captureTimeNanos: frame.ptsNanos, sentNanos: monotonicNanos,
                           extensions: FrameHeaderExtensions(every: headerExtension))
    }
}
