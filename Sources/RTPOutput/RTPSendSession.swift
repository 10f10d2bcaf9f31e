import Codec
import CongestionControl
import MediaCore
import NIOCore
import Output
import RTP
import SRTP

/// One RTP send session: what plain RTP (``RTPSenderHandler``) and a WebRTC peer (a WHEP viewer,
/// a WHIP session) both do with the shared encode, with no socket or timer of its own. It
/// packetizes H.264 (and Opus) frames on the video and audio ``RTPSenderSession``s, protects them
/// with SRTP when keyed, keeps the NACK history and answers feedback: NACK → retransmission (on
/// the RTX stream when there is one, RFC 4588), PLI/FIR → a rate-limited key frame request, REMB
/// → a bitrate estimate for the owner; it sends Sender Reports with SDES and a last BYE. When the
/// peer negotiated transport-wide congestion control, every RTP packet carries the transport-wide
/// sequence number, the feedback feeds a send-side bandwidth estimate (``TransportWideCCSender``)
/// and RTP leaves through a pacer (``RTPSendSession+Pacing.swift``). A frame is dropped, and delta
/// frames are held until a key frame, when the owner's socket has backed up (``SocketBacklogGate``)
/// or the pacer's queue is past its time bound; the one ``Statistics`` counts all of it.
///
/// Datagrams go out through `transmit`, with the ``Route`` they take (plain RTP sends each stream's
/// RTP and RTCP to their own ports; a WebRTC peer sends all to the path its ICE agent selected);
/// RTCP comes in through ``receiveRTCP(_:nowNanos:)``. Time is a parameter of every call. Like its
/// owner, it is confined to one event loop: every call comes from there.
///
/// Video may start at a key frame (``Configuration/startsAtKeyFrame``: frames before the first one
/// are skipped; ask the encoder for one when creating a session). Rotation: with a video
/// orientation extension (urn:3gpp:video-orientation), each frame's ``EncodedVideoFrame/rotation``
/// goes in it on its last packet; otherwise nothing is signalled, video starts at the first
/// *upright* key frame (rotation `.none`: the one the encoder makes when it switches to turning
/// pixels) and the owner must make sure the frames after it are upright too (``carriesRotation``).
/// Capture time: with abs-capture-time negotiated, each frame's first packet carries its capture
/// time on the wall clock (``AbsoluteCaptureTime``, ``CaptureTimeExtensionBlocks``), mapped by the
/// same ``WallClockMapping`` the Sender Reports' NTP/RTP pairs use, so the two never disagree.
public final class RTPSendSession {
    /// Packet sizes, report timing and history depth.
    public struct Configuration: Sendable {
        /// RTP payload bytes per packet (H.264 FU-A fragments at this size; Opus packets must fit).
        public var maxPayloadSize = 1200
        /// Sender Report (with SDES CNAME) interval, per stream.
        public var senderReportIntervalNanos: Int64 = 1_000_000_000
        /// At most this many video packets kept to answer NACKs, each for max(1 s, 3 × RTT).
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
        /// Video frames before the first key frame are skipped (a WebRTC peer cannot decode them;
        /// plain RTP sends them, for receivers that joined before the stream started).
        public var startsAtKeyFrame = true
        /// Plain RTP puts each frame's capture time in a SEI (``CaptureTimeSEI``); WebRTC does not.
        public var captureTime: CaptureTimeSignal = .none
        /// Capture (monotonic) time to wall clock, for the Sender Reports' NTP/RTP pairs and the
        /// capture times in abs-capture-time and the SEI alike (nil: sampled when the session starts).
        public var wallClock: WallClockMapping?
        /// The bounds sent in the playout-delay extension when it is negotiated
        /// (``HeaderExtensionIDs/videoPlayoutDelay``): by default none of the receiver's own
        /// jitter buffer beyond a few frames.
        public var playoutDelay = PlayoutDelay.lowLatency

        public init() {}
    }

    /// Where a datagram goes: each stream's RTP and RTCP (plain RTP gives each its own port).
    public enum Route: Sendable, Equatable {
        case videoRTP, videoRTCP, audioRTP, audioRTCP
    }

    /// The RTP header extensions negotiated (their one-byte ids; nil: not negotiated).
    public struct HeaderExtensionIDs: Sendable {
        public var videoTransportWideCC: UInt8?
        public var audioTransportWideCC: UInt8?
        public var videoOrientation: UInt8?
        public var videoCaptureTime: UInt8?
        /// playout-delay (``Configuration/playoutDelay``) on the first packet of every video frame.
        public var videoPlayoutDelay: UInt8?

        public init(videoTransportWideCC: UInt8? = nil, audioTransportWideCC: UInt8? = nil, videoOrientation: UInt8? = nil,
                    videoCaptureTime: UInt8? = nil, videoPlayoutDelay: UInt8? = nil) {
            self.videoTransportWideCC = videoTransportWideCC
            self.audioTransportWideCC = audioTransportWideCC
            self.videoOrientation = videoOrientation
            self.videoCaptureTime = videoCaptureTime
            self.videoPlayoutDelay = videoPlayoutDelay
        }
    }

    /// What one RTCP datagram from the receiver asks of the owner.
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

    /// The session's counters: per stream (nil for a stream it does not send), and its own.
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
        /// Video frames not written because the owner's socket had backed up (``SocketBacklogGate``),
        /// and the delta frames held after them until a key frame.
        public var framesDroppedAtSocket = 0
        public var framesHeldAtSocket = 0
        /// With a pacer: video frames it refused (its queue past the time bound) and the delta frames
        /// held after them until a key frame.
        public var framesDroppedAtPacer = 0
        public var framesHeldAtPacer = 0
        /// Probe clusters started and their padding packets (RTX copies of recent video packets).
        public var probesStarted = 0
        public var probePacketsSent = 0

        public init() {}
    }

    var video: RTPSenderSession<H264Payloader>?
    private var audio: RTPSenderSession<OpusPayloader>?
    var rtx: RTXPacketizer?
    /// The one-byte CVO extension for each ``VideoRotation``, built once (nil without CVO), after
    /// the transport-wide sequence number template when that is negotiated too.
    private let orientationExtensions: [VideoRotation: RTPHeaderExtension]?
    /// With a playout delay negotiated: the first packet's block (after the transport-wide template,
    /// when that is negotiated), and with orientation too, a one-packet frame's (nil otherwise).
    private let playoutDelayExtension: RTPHeaderExtension?
    private let onlyPacketExtensions: [VideoRotation: RTPHeaderExtension]?
    /// The first packet's blocks with each frame's capture time (nil without abs-capture-time).
    private let captureTimeBlocks: CaptureTimeExtensionBlocks?
    /// Transport-wide sequence numbers and the bandwidth estimate (nil when not negotiated).
    var transportWide: TransportWideCCSender?
    /// SRTP for what we send and for the RTCP we receive (nil: plain RTP, RTCP taken as it comes).
    private let outbound: SRTPSession?
    private let inbound: SRTPSession?
    let transmit: (ByteBuffer, Route) -> Void
    private let allocator: ByteBufferAllocator
    private let wallClock: WallClockMapping
    /// Stamps frames with their capture time on the same wall-clock mapping as the sender reports.
    private var captureTimeStamper: CaptureTimeStamper?
    private let senderReportIntervalNanos: Int64
    private var lastSenderReportNanos: Int64?
    var awaitingKeyFrame: Bool
    private var rtxPacketsSent = 0
    /// Frames not written while the owner's socket is backed up, and the delta frames after them.
    private var socketGate = SocketBacklogGate()
    /// Set by ``sendRateChanged()``: the next frame's first packet becomes ``oldestRetransmitted``.
    private var retransmitFromNextFrame = false
    /// Video packets before this sequence number (serial order) are not retransmitted.
    private var oldestRetransmitted: UInt16?
    /// Video bytes sent against what the receiver's reports say it has: the evidence of delivery
    /// health (plain RTP, a WHEP viewer, a WHIP session).
    public private(set) var videoReceiverReports: ReceiverReportLedger
    /// Reused per frame: where each datagram sits in the frame's send buffer.
    private var datagramBounds: [Range<Int>] = []
    /// Reused per frame: each datagram's transport-wide number (nil when not negotiated).
    private var transportNumbers: [UInt16?] = []
    /// With transport-cc, RTP leaves through this pacer at a multiple of the estimate
    /// (``RTPSendSession+Pacing.swift``); without, at once.
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
    ///   - video, audio: the streams' packetizers, histories and key frame limiters (nil: not sent).
    ///   - rtx: the RTX stream retransmissions go on (nil: the original packets again).
    ///   - outbound: SRTP protecting the RTP and RTCP we send (nil: sent in the clear).
    ///   - inbound: SRTP the receiver's RTCP must authenticate under (nil: taken in the clear).
    ///   - extensions: the header extensions negotiated (transport-cc adds the estimate and the pacer).
    ///   - transmit: sends one datagram on its route.
    public init(video: RTPSenderSession<H264Payloader>?, audio: RTPSenderSession<OpusPayloader>?, rtx: RTXPacketizer? = nil,
                outbound: SRTPSession?, inbound: SRTPSession?, extensions: HeaderExtensionIDs = HeaderExtensionIDs(),
                configuration: Configuration = Configuration(), allocator: ByteBufferAllocator = ByteBufferAllocator(),
                transmit: @escaping (ByteBuffer, Route) -> Void) throws(RTPError) {
        self.video = video
        self.audio = audio
        self.rtx = rtx
        let wallClock = configuration.wallClock ?? WallClockMapping.sampleNow()
        self.wallClock = wallClock
        if configuration.captureTime == .sei { captureTimeStamper = CaptureTimeStamper(wallClock: wallClock) }
        if extensions.videoTransportWideCC != nil || extensions.audioTransportWideCC != nil {
            transportWide = try TransportWideCCSender(videoExtensionID: extensions.videoTransportWideCC,
                                                      audioExtensionID: extensions.audioTransportWideCC,
                                                      estimator: configuration.bandwidthEstimation)
            pacer = configuration.pacing.map { PacketPacer(estimateBitsPerSecond: configuration.bandwidthEstimation.initialBitsPerSecond, settings: $0) }
        }
        let transportWide = transportWide
        /// One block with `elements`, after the transport-wide template when that is negotiated.
        func block(_ elements: [RTPHeaderExtensionElement]) throws(RTPError) -> RTPHeaderExtension {
            if let combined = try transportWide?.videoTemplate(followedBy: elements) { return combined }
            return try RTPHeaderExtension(oneByteElements: elements)
        }
        let playoutDelay = extensions.videoPlayoutDelay.map { ($0, configuration.playoutDelay) }
        let playoutElements = playoutDelay.map { [$0.1.element(id: $0.0)] } ?? []
        playoutDelayExtension = playoutElements.isEmpty ? nil : try block(playoutElements)
        if let id = extensions.videoOrientation {
            var orientations: [VideoRotation: RTPHeaderExtension] = [:], only: [VideoRotation: RTPHeaderExtension] = [:]
            for rotation in VideoRotation.allCases {
                let orientation = VideoOrientation(rotation: VideoOrientation.Rotation(rotation)).element(id: id)
                orientations[rotation] = try block([orientation])
                if !playoutElements.isEmpty { only[rotation] = try block([orientation] + playoutElements) }
            }
            orientationExtensions = orientations
            onlyPacketExtensions = only.isEmpty ? nil : only
        } else {
            orientationExtensions = nil
            onlyPacketExtensions = nil
        }
        captureTimeBlocks = extensions.videoCaptureTime.map {
            CaptureTimeExtensionBlocks(captureTimeID: $0, transportWideID: extensions.videoTransportWideCC, orientationID: extensions.videoOrientation,
                                       playoutDelay: playoutDelay.map { (id: $0.0, value: $0.1) })
        }
        self.outbound = outbound
        self.inbound = inbound
        self.transmit = transmit
        self.allocator = allocator
        awaitingKeyFrame = configuration.startsAtKeyFrame
        senderReportIntervalNanos = configuration.senderReportIntervalNanos
        videoReceiverReports = ReceiverReportLedger(capacity: configuration.receiverReportLedgerCapacity)
    }

    /// Whether frames' rotation reaches the peer as metadata (it negotiated video orientation).
    /// Without it, a rotated frame would be shown sideways: the owner sends upright frames only.
    public var carriesRotation: Bool { orientationExtensions != nil }

    public var statistics: Statistics {
        var statistics = Statistics()
        statistics.video = video?.statistics
        statistics.audio = audio?.statistics
        statistics.rtxPacketsSent = rtxPacketsSent
        statistics.transportFeedbackReceived = transportWide?.feedbackReceived ?? 0
        statistics.bandwidthEstimateBitsPerSecond = transportWide.map { $0.estimator.bitsPerSecond }
        statistics.feedbackLossFraction = transportWide.map { $0.estimator.lossFraction }
        statistics.transportOutages = transportWide?.outages ?? 0
        statistics.framesDroppedAtSocket = socketGate.framesDropped
        statistics.framesHeldAtSocket = socketGate.framesHeldBack
        statistics.framesDroppedAtPacer = framesDroppedAtPacer
        statistics.framesHeldAtPacer = framesHeldAtPacer
        statistics.probesStarted = probesStarted
        statistics.probePacketsSent = probePacketsSent
        return statistics
    }

    /// Records an error the owner's socket reported (an ICMP "port unreachable", say) on the video stream.
    public func record(error: any Error) { video?.record(error: error) }

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
    /// frame, when the session starts at one). `socketWritable` is false when the owner's socket
    /// has backed up: the frame is dropped, and delta frames wait for a key frame
    /// (``SocketBacklogGate``); so they do when the pacer's queue is past its time bound. Returns
    /// true when the owner should ask the encoder for a key frame.
    @discardableResult
    public func send(_ frame: EncodedVideoFrame, nowNanos: Int64, socketWritable: Bool = true) -> Bool {
        send(frame, nowNanos: nowNanos, socketWritable: socketWritable) { video, frame, extensions, captureTime throws(RTPError) in
            try video.packets(for: frame, allocator: allocator, monotonicNanos: nowNanos, extensions: extensions, captureTime: captureTime)
        }
    }

    /// ``send(_:nowNanos:socketWritable:)`` with the frame's payloads from `sharing`, packetized
    /// once for every session of the output that sends this frame at the same payload size
    /// (``H264PayloadSharing``). A session that stamps capture times into the frame (a SEI) makes
    /// its own.
    @discardableResult
    public func send(_ frame: EncodedVideoFrame, sharing: inout H264PayloadSharing, nowNanos: Int64, socketWritable: Bool = true) -> Bool {
        guard captureTimeStamper == nil else { return send(frame, nowNanos: nowNanos, socketWritable: socketWritable) }
        return send(frame, nowNanos: nowNanos, socketWritable: socketWritable) { video, frame, extensions, captureTime throws(RTPError) in
            let payloads = try sharing.payloads(for: frame, maxPayloadSize: video.packetizer.payloader.maxPayloadSize)
            return try video.packets(for: frame, sharedPayloads: payloads, allocator: allocator, monotonicNanos: nowNanos,
                                     extensions: extensions, captureTime: captureTime)
        }
    }

    /// The gates, extensions and sending around `packetize`, which makes one frame's packets on the video session.
    private func send(_ frame: EncodedVideoFrame, nowNanos: Int64, socketWritable: Bool,
                      packetize: (inout RTPSenderSession<H264Payloader>, EncodedVideoFrame, FrameHeaderExtensions,
                                  RTPSenderSession<H264Payloader>.CaptureTime?) throws(RTPError) -> [RTPPacket]) -> Bool {
        guard !isClosed, video != nil else { return false }
        var wantsKeyFrame = false
        guard socketGate.admits(frame, socketWritable: socketWritable, requestKeyFrame: { wantsKeyFrame = true }) else { return wantsKeyFrame }
        if admitsAtPacer(frame, nowNanos: nowNanos) == false { return pacerWantsKeyFrame(nowNanos: nowNanos) || wantsKeyFrame }
        if awaitingKeyFrame {
            guard frame.isKeyFrame, carriesRotation || frame.rotation == .none else { return wantsKeyFrame }
            awaitingKeyFrame = false
        }
        do {
            let frame = captureTimeStamper?.stamped(frame) ?? frame
            let extensions = FrameHeaderExtensions(every: transportWide?.videoTemplate, first: playoutDelayExtension,
                                                   last: orientationExtensions?[frame.rotation], only: onlyPacketExtensions?[frame.rotation])
            let captureTime = captureTimeBlocks.map {
                ($0, AbsoluteCaptureTime(captureTime: NTPTimestamp(unixNanos: wallClock.wallClockNanos(forMonotonic: frame.ptsNanos))))
            }
            let packets = try packetize(&video!, frame, extensions, captureTime)
            if retransmitFromNextFrame, let first = packets.first {
                oldestRetransmitted = first.header.sequenceNumber
                retransmitFromNextFrame = false
            }
            try sendRTP(packets, kind: .video, route: .videoRTP, nowNanos: nowNanos) { video?.record(bytesSent: $0) }
            if let last = packets.last { lastVideoSequenceNumber = last.header.sequenceNumber }
            for (packet, bounds) in zip(packets, datagramBounds) {
                videoReceiverReports.recordSent(sequenceNumber: packet.header.sequenceNumber, bytes: bounds.count)
            }
        } catch {
            video?.record(error: error)
        }
        return wantsKeyFrame
    }

    /// Packetizes (RFC 7587: one Opus packet per RTP packet), protects and sends one audio frame.
    public func send(_ frame: EncodedAudioFrame, nowNanos: Int64) {
        guard !isClosed, audio != nil, frame.codec == .opus else { return }
        do {
            let packets = try audio!.packets(for: frame, allocator: allocator, monotonicNanos: nowNanos, headerExtension: transportWide?.audioTemplate)
            try sendRTP(packets, kind: .audio, route: .audioRTP, nowNanos: nowNanos) { audio?.record(bytesSent: $0) }
        } catch {
            audio?.record(error: error)
        }
    }

    /// Authenticates (with SRTP) and applies one RTCP datagram: reception reports update the
    /// statistics, NACKs are answered at once, key frame requests and REMB go back to the owner.
    /// Anything that is not RTCP, does not parse or does not authenticate is dropped and counted.
    public func receiveRTCP(_ datagram: ByteBuffer, nowNanos: Int64) -> Feedback {
        guard !isClosed else { return Feedback() }
        guard RTPDemultiplexedPacketKind(datagram: datagram) == .rtcp else {
            video?.recordDroppedRTCP()
            return Feedback()
        }
        var packet = datagram
        let compound: RTCPCompoundPacket
        do {
            try inbound?.unprotectRTCP(&packet)
            compound = try RTCPCompoundPacket(from: &packet)
        } catch {
            video?.recordDroppedRTCP()
            return Feedback()
        }
        if let ssrc = video?.ssrc { applyReceptionReports(in: compound, about: ssrc) }
        var feedback = Feedback()
        if let response = audio?.handle(compound, monotonicNanos: nowNanos, wallClock: wallClock) {
            feedback.requestKeyFrame = response.requestKeyFrame
            resend(response.retransmissions, onRTX: false, route: .audioRTP, nowNanos: nowNanos) { audio?.record(bytesSent: $0) }
        }
        if let response = video?.handle(compound, monotonicNanos: nowNanos, wallClock: wallClock) {
            feedback.requestKeyFrame = feedback.requestKeyFrame || response.requestKeyFrame
            feedback.estimatedBitrateBitsPerSecond = response.estimatedBitrateBitsPerSecond
            var retransmissions = response.retransmissions
            if let oldest = oldestRetransmitted {
                // Serial number order (RFC 1982): at or after `oldest`.
                retransmissions.removeAll { Int16(bitPattern: $0.header.sequenceNumber &- oldest) < 0 }
            }
            resend(retransmissions, onRTX: rtx != nil, route: .videoRTP, nowNanos: nowNanos) { video?.record(bytesSent: $0) }
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
        sendReports(nowNanos: nowNanos)
    }

    /// A Sender Report with SDES now, per stream that has sent something (RFC 3550 §6.4: only a
    /// stream that sent something reports as a sender), for an owner with its own report timer.
    public func sendReports(nowNanos: Int64) {
        guard !isClosed else { return }
        lastSenderReportNanos = nowNanos
        report(goodbye: false, nowNanos: nowNanos)
    }

    /// The last reports with BYE (RFC 3550 §6.6) for the streams that sent something; nothing is
    /// sent afterwards.
    public func close(nowNanos: Int64) {
        guard !isClosed else { return }
        report(goodbye: true, nowNanos: nowNanos)
        isClosed = true
    }

    /// SR + SDES (+ BYE) for each stream that sent something, on its RTCP route.
    private func report(goodbye: Bool, nowNanos: Int64) {
        if video?.statistics.packetsSent ?? 0 > 0,
           let compound = try? (goodbye ? video?.goodbye(monotonicNanos: nowNanos, wallClock: wallClock)
                                        : video?.senderReport(monotonicNanos: nowNanos, wallClock: wallClock)) {
            sendRTCP(compound, route: .videoRTCP) { video?.record(bytesSent: $0) }
        }
        if audio?.statistics.packetsSent ?? 0 > 0,
           let compound = try? (goodbye ? audio?.goodbye(monotonicNanos: nowNanos, wallClock: wallClock)
                                        : audio?.senderReport(monotonicNanos: nowNanos, wallClock: wallClock)) {
            sendRTCP(compound, route: .audioRTCP) { audio?.record(bytesSent: $0) }
        }
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
    private func resend(_ packets: [RTPPacket], onRTX: Bool, route: Route, nowNanos: Int64, record: (Int) -> Void) {
        guard !packets.isEmpty else { return }
        do {
            if onRTX, var rtx {
                let wrapped = packets.map { rtx.wrap($0) }
                self.rtx = rtx
                rtxPacketsSent += wrapped.count
                try sendRTP(wrapped, kind: .retransmission, route: route, nowNanos: nowNanos, record: record)
            } else {
                try sendRTP(packets, kind: .retransmission, route: route, nowNanos: nowNanos, record: record)
            }
        } catch {
            video?.record(error: error)
        }
    }

    /// One buffer for all datagrams of a frame: each packet is written, numbered (transport-wide,
    /// when negotiated) and protected in place, then handed out as a slice: to the pacer when there
    /// is one (it marks the send time when the packet really leaves), else to `transmit`.
    func sendRTP(_ packets: [RTPPacket], kind: PacketPacer<PacedDatagram>.Kind, route: Route, nowNanos: Int64,
                 record: (Int) -> Void) throws(SRTPError) {
        let reserve = outbound == nil ? 0 : SRTPSession.maxRTPTrailerSize
        var datagrams = allocator.buffer(capacity: packets.reduce(0) { $0 + $1.encodedSize + reserve })
        datagramBounds.removeAll(keepingCapacity: true)
        for packet in packets {
            let start = datagrams.writerIndex
            // The readable bytes are this packet alone while it is protected.
            datagrams.moveReaderIndex(to: start)
            packet.write(to: &datagrams)
            let number = transportWide?.stamp(&datagrams, at: start, header: packet.header, sendTimeNanos: pacer == nil ? nowNanos : nil)
            try outbound?.protect(rtp: &datagrams)
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
                pacer?.enqueue(PacedDatagram(datagram: datagram, route: route, transportSequenceNumber: number), sizeBytes: bounds.count, kind: kind, nowNanos: nowNanos)
            } else {
                transmit(datagram, route)
            }
        }
        record(datagrams.readableBytes)
        if pacer != nil { pace(nowNanos: nowNanos) }
    }

    private func sendRTCP(_ compound: RTCPCompoundPacket, route: Route, record: (Int) -> Void) {
        var buffer = allocator.buffer(capacity: compound.encodedSize + (outbound == nil ? 0 : SRTPSession.maxRTCPTrailerSize))
        compound.write(to: &buffer)
        do {
            try outbound?.protectRTCP(&buffer)
        } catch {
            return
        }
        record(buffer.readableBytes)
        transmit(buffer, route)
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
