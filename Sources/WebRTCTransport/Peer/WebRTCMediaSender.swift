import Codec
import CongestionControl
import MediaCore
import NIOCore
import RTP
import RTPOutput
import SRTP
import WebRTC

/// The media half of one WebRTC peer connection, after ICE and DTLS are done: what a WHEP viewer
/// and a WHIP session both do with the shared encode. It packetizes H.264 (and Opus) frames on the
/// SSRCs and payload types the ``NegotiatedSession`` settled, protects them with the peer's SRTP
/// session, sends Sender Reports with SDES for each stream, and answers SRTCP feedback: NACK →
/// retransmission (on the RTX stream when negotiated, RFC 4588), PLI/FIR → a rate-limited key
/// frame request, REMB → a bitrate estimate for the owner. When the peer negotiated transport-wide
/// congestion control, every RTP packet carries the transport-wide sequence number and the peer's
/// transport-cc feedback feeds a send-side bandwidth estimate (``TransportWideCCSender``).
///
/// Nothing here knows about ICE, DTLS or sockets: datagrams go out through `transmit` (to the path
/// the owner's ICE agent selected) and SRTCP comes in through ``receiveRTCP(_:nowNanos:)``. Like
/// the owner, it is confined to one event loop: every call comes from there.
///
/// Video starts at a key frame (frames before the first one are skipped: ask the encoder for one
/// when creating a sender). Rotation: when the peer negotiated urn:3gpp:video-orientation, each
/// frame's ``EncodedVideoFrame/rotation`` goes in that extension on its last packet; otherwise
/// nothing is signalled, video starts at the first *upright* key frame (rotation `.none`: the one
/// the encoder makes when it switches to turning pixels) and the owner must make sure the frames
/// after it are upright too (``carriesRotation`` tells which).
public final class WebRTCMediaSender {
    /// Packet sizes, report timing and history depth.
    public struct Configuration: Sendable {
        /// RTP payload bytes per packet (H.264 FU-A fragments at this size; Opus packets must fit).
        public var maxPayloadSize = 1200
        /// Sender Report (with SDES CNAME) interval, per stream.
        public var senderReportIntervalNanos: Int64 = 1_000_000_000
        /// Video packets kept to answer NACKs.
        public var historyCapacity = RTPSendHistory.defaultCapacity
        /// At most one key frame request per interval, however many PLI/FIR arrive.
        public var keyFrameRequestIntervalNanos = KeyFrameRequestLimiter.defaultMinimumIntervalNanos
        /// Video packets remembered to turn the peer's receiver reports into bytes (``ReceiverReportLedger``).
        public var receiverReportLedgerCapacity = ReceiverReportLedger.defaultCapacity
        /// The send-side estimator's start and bounds, used when the peer negotiated transport-cc.
        public var bandwidthEstimation = SendSideBandwidthEstimator.Configuration(initialBitsPerSecond: 2_500_000,
                                                                                  maximumBitsPerSecond: 10_000_000)
        /// With transport-cc, packets are paced at a multiple of the estimate (nil: sent at once).
        public var pacing: PacketPacer<PacedDatagram>.Settings? = .init()

        public init() {}
    }

    /// What one SRTCP datagram from the peer asks of the owner.
    public struct Feedback: Sendable, Equatable {
        /// A PLI/FIR passed the limiter: ask the encoder for an IDR.
        public var requestKeyFrame = false
        /// The peer's REMB estimate for our video, when the datagram carried one.
        public var estimatedBitrateBitsPerSecond: UInt64?
        /// The send-side estimate after transport-cc feedback in this datagram.
        public var bandwidthEstimateBitsPerSecond: Int?
        /// A probe cluster's result from this datagram's transport-cc feedback (``startProbe(bitsPerSecond:durationNanos:nowNanos:)``).
        public var probeBitsPerSecond: Int?

        public init(requestKeyFrame: Bool = false, estimatedBitrateBitsPerSecond: UInt64? = nil, bandwidthEstimateBitsPerSecond: Int? = nil) {
            self.requestKeyFrame = requestKeyFrame
            self.estimatedBitrateBitsPerSecond = estimatedBitrateBitsPerSecond
            self.bandwidthEstimateBitsPerSecond = bandwidthEstimateBitsPerSecond
        }
    }

    /// Counters per stream (nil for a stream that was not negotiated).
    public struct Statistics: Sendable, Equatable {
        public var video: RTPSenderStatistics?
        public var audio: RTPSenderStatistics?
        /// Retransmissions sent on the RTX stream (the rest went as plain retransmissions).
        public var rtxPacketsSent = 0
        /// Transport-wide congestion control, when negotiated: feedback packets received and the estimate.
        public var transportFeedbackReceived = 0
        public var bandwidthEstimateBitsPerSecond: Int?
        public var feedbackLossFraction: Double?
        /// Link outages the transport-cc feedback showed, each answered with a key frame request.
        public var transportOutages = 0
        /// With a pacer: video frames it refused (its queue past the time bound) and the delta frames
        /// held after them until a key frame.
        public var framesDroppedAtPacer = 0
        public var framesHeldAtPacer = 0
        /// Probe clusters started and their padding packets (RTX copies of recent video packets).
        public var probesStarted = 0
        public var probePacketsSent = 0
    }

    var video: RTPSenderSession<H264Payloader>?
    private var audio: RTPSenderSession<OpusPayloader>?
    var rtx: RTXPacketizer?
    /// The one-byte CVO extension for each ``VideoRotation``, built once (nil without CVO), after
    /// the transport-wide sequence number template when that is negotiated too.
    private let orientationExtensions: [VideoRotation: RTPHeaderExtension]?
    /// Transport-wide sequence numbers and the bandwidth estimate (nil when not negotiated).
    var transportWide: TransportWideCCSender?
    private let outbound: SRTPSession
    private let inbound: SRTPSession
    let transmit: (ByteBuffer) -> Void
    private let allocator: ByteBufferAllocator
    private let wallClock = WallClockMapping.sampleNow()
    private let senderReportIntervalNanos: Int64
    private var lastSenderReportNanos: Int64?
    var awaitingKeyFrame = true
    private var rtxPacketsSent = 0
    /// Set by ``sendRateChanged()``: the next frame's first packet becomes ``oldestRetransmitted``.
    private var retransmitFromNextFrame = false
    /// Video packets before this sequence number (serial order) are not retransmitted.
    private var oldestRetransmitted: UInt16?
    /// Video bytes sent against what the peer's receiver reports say it has: the evidence of a
    /// WHIP session's delivery health.
    public private(set) var videoReceiverReports: ReceiverReportLedger
    /// Reused per frame: where each datagram sits in the frame's send buffer.
    private var datagramBounds: [Range<Int>] = []
    /// Reused per frame: each datagram's transport-wide number (nil when not negotiated).
    private var transportNumbers: [UInt16?] = []
    /// With transport-cc, RTP leaves through this pacer at a multiple of the estimate
    /// (``WebRTCMediaSender+Pacing.swift``); without, at once.
    var pacer: PacketPacer<PacedDatagram>?
    /// Video frames refused because the pacer's queue was past its time bound, and the delta
    /// frames held after them until a key frame.
    var framesDroppedAtPacer = 0
    var framesHeldAtPacer = 0
    /// When the pacer last dropped a frame and asked for a key frame (nil: not waiting for one).
    var pacerKeyFrameAskedNanos: Int64?
    /// The probe cluster going out now, and the number the next one gets.
    var probingClusterID: Int?
    var nextProbeClusterID = 0
    var probesStarted = 0
    var probePacketsSent = 0
    /// The last video packet's sequence number: probe padding copies the packets before it.
    var lastVideoSequenceNumber: UInt16?
    public private(set) var isClosed = false

    /// - Parameters:
    ///   - session: what offer/answer settled (payload types, SSRCs, RTX, extension ids).
    ///   - outbound: SRTP keyed with our DTLS-exported key (protects RTP and RTCP we send).
    ///   - inbound: SRTP keyed with the peer's key (authenticates the SRTCP it sends).
    ///   - cname: the CNAME our SDP announced (RFC 7022: random per session).
    ///   - transmit: sends one datagram to the peer's selected address.
    public init(session: NegotiatedSession, outbound: SRTPSession, inbound: SRTPSession, cname: String,
                configuration: Configuration = Configuration(), allocator: ByteBufferAllocator = ByteBufferAllocator(),
                transmit: @escaping (ByteBuffer) -> Void) throws(RTPError) {
        var generator = SystemRandomNumberGenerator()
        let limiter = KeyFrameRequestLimiter(minimumIntervalNanos: configuration.keyFrameRequestIntervalNanos)
        if let negotiated = session.video {
            let packetizer = try RTPPacketizer(
                ssrc: negotiated.ssrc, payloadType: negotiated.payloadType,
                payloader: try H264Payloader(maxPayloadSize: configuration.maxPayloadSize, allocator: allocator), using: &generator)
            video = RTPSenderSession(packetizer: packetizer, cname: cname, historyCapacity: configuration.historyCapacity, limiter: limiter)
            if let payloadType = negotiated.rtxPayloadType, let ssrc = negotiated.rtxSSRC {
                rtx = try RTXPacketizer(ssrc: ssrc, payloadType: payloadType, sequencer: RTPSequencer(using: &generator), allocator: allocator)
            }
        }
        if let negotiated = session.audio {
            let packetizer = try RTPPacketizer(
                ssrc: negotiated.ssrc, payloadType: negotiated.payloadType,
                payloader: OpusPayloader(maxPayloadSize: configuration.maxPayloadSize), using: &generator)
            audio = RTPSenderSession(packetizer: packetizer, cname: cname, historyCapacity: 1, limiter: limiter)
        }
        let videoTransportWideID = session.video?.transportWideCCExtensionID, audioTransportWideID = session.audio?.transportWideCCExtensionID
        if videoTransportWideID != nil || audioTransportWideID != nil {
            transportWide = try TransportWideCCSender(videoExtensionID: videoTransportWideID, audioExtensionID: audioTransportWideID,
                                                      estimator: configuration.bandwidthEstimation)
            pacer = configuration.pacing.map { PacketPacer(estimateBitsPerSecond: configuration.bandwidthEstimation.initialBitsPerSecond, settings: $0) }
        }
        if let id = session.video?.videoOrientationExtensionID {
            var extensions: [VideoRotation: RTPHeaderExtension] = [:]
            for rotation in VideoRotation.allCases {
                let orientation = VideoOrientation(rotation: VideoOrientation.Rotation(rotation))
                if let combined = try transportWide?.videoTemplate(followedBy: orientation.element(id: id)) {
                    extensions[rotation] = combined
                } else {
                    extensions[rotation] = try orientation.headerExtension(id: id)
                }
            }
            orientationExtensions = extensions
        } else {
            orientationExtensions = nil
        }
        self.outbound = outbound
        self.inbound = inbound
        self.transmit = transmit
        self.allocator = allocator
        senderReportIntervalNanos = configuration.senderReportIntervalNanos
        videoReceiverReports = ReceiverReportLedger(capacity: configuration.receiverReportLedgerCapacity)
    }

    /// Whether frames' rotation reaches the peer as metadata (it negotiated video orientation).
    /// Without it, a rotated frame would be shown sideways: the owner sends upright frames only.
    public var carriesRotation: Bool { orientationExtensions != nil }

    public var statistics: Statistics {
        Statistics(video: video?.statistics, audio: audio?.statistics, rtxPacketsSent: rtxPacketsSent,
                   transportFeedbackReceived: transportWide?.feedbackReceived ?? 0,
                   bandwidthEstimateBitsPerSecond: transportWide.map { $0.estimator.bitsPerSecond },
                   feedbackLossFraction: transportWide.map { $0.estimator.lossFraction }, transportOutages: transportWide?.outages ?? 0,
                   framesDroppedAtPacer: framesDroppedAtPacer, framesHeldAtPacer: framesHeldAtPacer,
                   probesStarted: probesStarted, probePacketsSent: probePacketsSent)
    }

    /// The video moved to another rendition with the frame about to be sent (its key frame): the
    /// estimator forgets the old stream's acknowledged rate, and NACKs for the old rendition's
    /// packets are no longer answered — that key frame supersedes them, and on a link that just
    /// got narrow their retransmissions would crowd it out.
    public func sendRateChanged() {
        transportWide?.sendRateChanged()
        retransmitFromNextFrame = true
    }

    /// Whether the peer negotiated transport-wide congestion control (the estimate comes from its
    /// feedback rather than REMB).
    public var usesTransportWideCC: Bool { transportWide != nil }

    /// Packetizes, protects and sends one frame of the shared encode (skipped until the first key
    /// frame). Returns true when the owner should ask the encoder for a key frame: the pacer's queue
    /// was past its time bound, so this frame was dropped and delta frames wait for a key frame.
    @discardableResult
    public func send(_ frame: EncodedVideoFrame, nowNanos: Int64) -> Bool {
        guard !isClosed, video != nil else { return false }
        if admitsAtPacer(frame, nowNanos: nowNanos) == false { return pacerWantsKeyFrame(nowNanos: nowNanos) }
        if awaitingKeyFrame {
            guard frame.isKeyFrame, carriesRotation || frame.rotation == .none else { return false }
            awaitingKeyFrame = false
        }
        do {
            let orientation = orientationExtensions?[frame.rotation]
            let packets = try video!.packets(for: frame, allocator: allocator, monotonicNanos: nowNanos,
                                             packetExtension: transportWide?.videoTemplate, lastPacketExtension: orientation)
            if retransmitFromNextFrame, let first = packets.first {
                oldestRetransmitted = first.header.sequenceNumber
                retransmitFromNextFrame = false
            }
            try sendRTP(packets, kind: .video, nowNanos: nowNanos) { video?.record(bytesSent: $0) }
            if let last = packets.last { lastVideoSequenceNumber = last.header.sequenceNumber }
            for (packet, bounds) in zip(packets, datagramBounds) {
                videoReceiverReports.recordSent(sequenceNumber: packet.header.sequenceNumber, bytes: bounds.count)
            }
        } catch {
            video?.record(error: error)
        }
        return false
    }

    /// Packetizes (RFC 7587: one Opus packet per RTP packet), protects and sends one audio frame.
    public func send(_ frame: EncodedAudioFrame, nowNanos: Int64) {
        guard !isClosed, audio != nil, frame.codec == .opus else { return }
        do {
            let packets = try audio!.packets(for: frame, allocator: allocator, headerExtension: transportWide?.audioTemplate)
            try sendRTP(packets, kind: .audio, nowNanos: nowNanos) { audio?.record(bytesSent: $0) }
        } catch {
            audio?.record(error: error)
        }
    }

    /// Authenticates and applies one SRTCP datagram: reception reports update the statistics,
    /// NACKs are answered at once, key frame requests and REMB go back to the owner.
    public func receiveRTCP(_ datagram: ByteBuffer, nowNanos: Int64) -> Feedback {
        guard !isClosed else { return Feedback() }
        var packet = datagram
        let compound: RTCPCompoundPacket
        do {
            try inbound.unprotectRTCP(&packet)
            compound = try RTCPCompoundPacket(from: &packet)
        } catch {
            video?.recordDroppedRTCP()
            return Feedback()
        }
        if let ssrc = video?.ssrc { applyReceptionReports(in: compound, about: ssrc) }
        var feedback = Feedback()
        if let response = audio?.handle(compound, monotonicNanos: nowNanos, wallClock: wallClock) {
            feedback.requestKeyFrame = response.requestKeyFrame
            resend(response.retransmissions, onRTX: false, nowNanos: nowNanos) { audio?.record(bytesSent: $0) }
        }
        if let response = video?.handle(compound, monotonicNanos: nowNanos, wallClock: wallClock) {
            feedback.requestKeyFrame = feedback.requestKeyFrame || response.requestKeyFrame
            feedback.estimatedBitrateBitsPerSecond = response.estimatedBitrateBitsPerSecond
            var retransmissions = response.retransmissions
            if let oldest = oldestRetransmitted {
                // Serial number order (RFC 1982): at or after `oldest`.
                retransmissions.removeAll { Int16(bitPattern: $0.header.sequenceNumber &- oldest) < 0 }
            }
            resend(retransmissions, onRTX: rtx != nil, nowNanos: nowNanos) { video?.record(bytesSent: $0) }
        }
        if let outagesBefore = transportWide?.outages {
            let probesBefore = transportWide?.estimator.probeResults ?? 0
            for case .transportWideCC(let report) in compound.packets {
                feedback.bandwidthEstimateBitsPerSecond = transportWide?.receive(
                    report, roundTripNanos: video?.statistics.roundTripTimeNanos, nowNanos: nowNanos)
            }
            // The link was down (a second of packets all lost): the peer's own key-frame request may
            // have been lost with it, and NACK repair of a second and more of video arrives late;
            // a key frame resumes the picture whatever reached us.
            if (transportWide?.outages ?? 0) > outagesBefore { feedback.requestKeyFrame = true }
            if let estimate = feedback.bandwidthEstimateBitsPerSecond { pacer?.setEstimate(bitsPerSecond: estimate) }
            if let estimator = transportWide?.estimator, estimator.probeResults != probesBefore { feedback.probeBitsPerSecond = estimator.probeBitsPerSecond }
        }
        return feedback
    }

    /// Timers: a Sender Report per stream that has sent something, every interval.
    public func tick(nowNanos: Int64) {
        guard !isClosed else { return }
        if let last = lastSenderReportNanos, nowNanos - last < senderReportIntervalNanos { return }
        lastSenderReportNanos = nowNanos
        // RFC 3550 §6.4: only a stream that sent something reports as a sender.
        if video?.statistics.packetsSent ?? 0 > 0, let report = try? video?.senderReport(monotonicNanos: nowNanos, wallClock: wallClock) {
            sendRTCP(report) { video?.record(bytesSent: $0) }
        }
        if audio?.statistics.packetsSent ?? 0 > 0, let report = try? audio?.senderReport(monotonicNanos: nowNanos, wallClock: wallClock) {
            sendRTCP(report) { audio?.record(bytesSent: $0) }
        }
    }

    /// The last reports with BYE (RFC 3550 §6.6) for the streams that sent something; nothing is
    /// sent afterwards.
    public func close(nowNanos: Int64) {
        guard !isClosed else { return }
        if video?.statistics.packetsSent ?? 0 > 0, let bye = try? video?.goodbye(monotonicNanos: nowNanos, wallClock: wallClock) {
            sendRTCP(bye) { video?.record(bytesSent: $0) }
        }
        if audio?.statistics.packetsSent ?? 0 > 0, let bye = try? audio?.goodbye(monotonicNanos: nowNanos, wallClock: wallClock) {
            sendRTCP(bye) { audio?.record(bytesSent: $0) }
        }
        isClosed = true
    }

    /// Report blocks about our video, in Receiver Reports or in the peer's own Sender Reports.
    private func applyReceptionReports(in compound: RTCPCompoundPacket, about ssrc: UInt32) {
        for packet in compound.packets {
            let blocks: [ReceptionReport]
            switch packet {
            case .receiverReport(let report): blocks = report.reports
            case .senderReport(let report): blocks = report.reports
            default: continue
            }
            for block in blocks where block.ssrc == ssrc {
                videoReceiverReports.acknowledge(extendedHighestSequenceNumber: block.extendedHighestSequenceNumber)
            }
        }
    }

    // MARK: - Sending

    /// Retransmissions: RTX-wrapped when negotiated (a separate SSRC keeps the original stream's
    /// loss counts and SRTP replay window intact), else the original packets again.
    private func resend(_ packets: [RTPPacket], onRTX: Bool, nowNanos: Int64, record: (Int) -> Void) {
        guard !packets.isEmpty else { return }
        do {
            if onRTX, var rtx {
                let wrapped = packets.map { rtx.wrap($0) }
                self.rtx = rtx
                rtxPacketsSent += wrapped.count
                try sendRTP(wrapped, kind: .retransmission, nowNanos: nowNanos, record: record)
            } else {
                try sendRTP(packets, kind: .retransmission, nowNanos: nowNanos, record: record)
            }
        } catch {
            video?.record(error: error)
        }
    }

    /// One buffer for all datagrams of a frame: each packet is written, numbered (transport-wide,
    /// when negotiated) and protected in place, then handed out as a slice: to the pacer when there
    /// is one (it marks the send time when the packet really leaves), else to `transmit`.
    func sendRTP(_ packets: [RTPPacket], kind: PacketPacer<PacedDatagram>.Kind, nowNanos: Int64, record: (Int) -> Void) throws(SRTPError) {
        var datagrams = allocator.buffer(capacity: packets.reduce(0) { $0 + $1.encodedSize + SRTPSession.maxRTPTrailerSize })
        datagramBounds.removeAll(keepingCapacity: true)
        for packet in packets {
            let start = datagrams.writerIndex
            // The readable bytes are this packet alone while it is protected.
            datagrams.moveReaderIndex(to: start)
            packet.write(to: &datagrams)
            let number = transportWide?.stamp(&datagrams, at: start, header: packet.header, sendTimeNanos: pacer == nil ? nowNanos : nil)
            try outbound.protect(rtp: &datagrams)
            if number != nil { transportWide?.protected(sizeBytes: datagrams.writerIndex - start) }
            datagramBounds.append(start..<datagrams.writerIndex)
            transportNumbers.append(number)
        }
        defer { transportNumbers.removeAll(keepingCapacity: true) }
        // Slices must lie in the readable bytes.
        datagrams.moveReaderIndex(to: 0)
        for (bounds, number) in zip(datagramBounds, transportNumbers) {
            guard let datagram = datagrams.getSlice(at: bounds.lowerBound, length: bounds.count) else { continue }
            if pacer != nil {
                pacer?.enqueue(PacedDatagram(datagram: datagram, transportSequenceNumber: number), sizeBytes: bounds.count, kind: kind, nowNanos: nowNanos)
            } else {
                transmit(datagram)
            }
        }
        record(datagrams.readableBytes)
        if pacer != nil { pace(nowNanos: nowNanos) }
    }

    private func sendRTCP(_ compound: RTCPCompoundPacket, record: (Int) -> Void) {
        var buffer = allocator.buffer(capacity: compound.encodedSize + SRTPSession.maxRTCPTrailerSize)
        compound.write(to: &buffer)
        guard (try? outbound.protectRTCP(&buffer)) != nil else { return }
        record(buffer.readableBytes)
        transmit(buffer)
    }
}

extension VideoOrientation.Rotation {
    /// The CVO rotation bits for a frame's rotation: both mean "turn clockwise this far to display".
    init(_ rotation: VideoRotation) {
        switch rotation {
        case .none: self = .degrees0
        case .clockwise90: self = .degrees90
        case .clockwise180: self = .degrees180
        case .clockwise270: self = .degrees270
        }
    }
}
