import CongestionControl
import NIOCore
import RTP

/// The sender's half of transport-wide congestion control for one peer connection: it numbers
/// every outgoing RTP packet (video, RTX, audio) with the transport-wide sequence number, remembers
/// when each left and how big it was (``TransportWideSendHistory``, a preallocated ring), and turns
/// the peer's transport-cc feedback into a bandwidth estimate (``SendSideBandwidthEstimator``).
///
/// Packets carry a template extension (``TransportWideSequenceNumber/template(id:followedBy:)``)
/// from the packetizer; ``stamp(_:at:header:nowNanos:)`` writes the number into the serialized
/// packet, before SRTP protects it. Confined to the owner's event loop, like the media sender.
struct TransportWideCCSender {
    private(set) var history = TransportWideSendHistory()
    private(set) var estimator: SendSideBandwidthEstimator
    /// transport-cc feedback packets received.
    private(set) var feedbackReceived = 0
    /// Feedback entries naming packets the history no longer (or never) held.
    private(set) var unknownPackets = 0
    /// Link outages the feedback showed: every packet sent over at least ``outageNanos`` lost.
    private(set) var outages = 0
    /// The send time of the first packet of the current run of lost ones (nil: the last one arrived),
    /// and whether that run already counted as an outage.
    private var lostRun: (firstSentNanos: Int64, counted: Bool)?
    /// A run of lost packets sent over this long is a link outage, not congestion loss (a drop-tail
    /// queue loses some packets of a burst, not a second of them all).
    static let outageNanos: Int64 = 1_000_000_000
    /// The template for every packet of a stream that has none other, one per negotiated stream id.
    let videoTemplate: RTPHeaderExtension?
    let audioTemplate: RTPHeaderExtension?
    private let videoExtensionID: UInt8?
    private let audioExtensionID: UInt8?

    init(videoExtensionID: UInt8?, audioExtensionID: UInt8?, estimator configuration: SendSideBandwidthEstimator.Configuration) throws(RTPError) {
        self.videoExtensionID = videoExtensionID
        self.audioExtensionID = audioExtensionID
        videoTemplate = try videoExtensionID.map { id throws(RTPError) in try TransportWideSequenceNumber.template(id: id) }
        audioTemplate = try audioExtensionID.map { id throws(RTPError) in try TransportWideSequenceNumber.template(id: id) }
        estimator = SendSideBandwidthEstimator(configuration: configuration)
    }

    /// The video template followed by `elements` (the orientation on a frame's last packet, the
    /// playout delay on its first).
    func videoTemplate(followedBy elements: [RTPHeaderExtensionElement]) throws(RTPError) -> RTPHeaderExtension? {
        guard let id = videoExtensionID else { return nil }
        return try TransportWideSequenceNumber.template(id: id, followedBy: elements)
    }

    /// Numbers the packet serialized at `start` in `buffer` (its header carries a template) and
    /// remembers it as sent at `sendTimeNanos` (nil: queued in a pacer, not sent yet, until
    /// ``markSent(_:nowNanos:probeClusterID:)``); returns the number, nil (nothing done) for a packet
    /// without a template (its block, if any, does not start with a transport-wide element: on a
    /// stream that did not negotiate it, the block holds other extensions only).
    mutating func stamp(_ buffer: inout ByteBuffer, at start: Int, header: RTPHeader, sendTimeNanos: Int64?) -> UInt16? {
        guard let block = header.headerExtension, block.form == .oneByte,
              let first = block.data.getInteger(at: block.data.readerIndex, as: UInt8.self),
              first >> 4 == videoExtensionID || first >> 4 == audioExtensionID else { return nil }
        let number = history.next(sendTimeNanos: sendTimeNanos ?? Self.notSentYet, sizeBytes: buffer.writerIndex - start)
        buffer.setInteger(number, at: start + TransportWideSequenceNumber.sequenceNumberOffset(in: header))
        return number
    }

    /// The packet numbered `number` left the pacer now.
    mutating func markSent(_ number: UInt16, nowNanos: Int64, probeClusterID: Int?) {
        history.markSent(number, atNanos: nowNanos, probeClusterID: probeClusterID)
    }

    /// The stamped packet's size on the wire, once SRTP protected it.
    mutating func protected(sizeBytes: Int) { history.updateNewest(sizeBytes: sizeBytes) }

    mutating func sendRateChanged() { estimator.sendRateChanged() }

    /// The send time of a packet numbered in the pacer that has not left yet.
    static let notSentYet = Int64.max

    /// One transport-cc feedback packet: the packets it reports, matched with the history, update
    /// the estimate. Returns the new estimate.
    ///
    /// Packets are numbered as they join the pacer, and audio, retransmissions and video overtake
    /// packets numbered before them (probe padding above all): the receiver reports such a packet
    /// "not received" while it still waits here or is on its way. A packet reported missing that
    /// left after the newest packet the feedback says arrived (or has not left) is not judged: its
    /// fate is unknown, and counting it lost would read the pacer's own order as loss.
    mutating func receive(_ feedback: TransportWideCCFeedback, roundTripNanos: Int64?, nowNanos: Int64) -> Int {
        feedbackReceived += 1
        var packets: [PacketFeedback] = []
        let results = feedback.packetResults
        packets.reserveCapacity(results.count)
        var newestArrivedSendNanos = Int64.min
        for result in results where result.arrivalTimeMicros != nil {
            if let sent = history.entry(for: result.sequenceNumber) { newestArrivedSendNanos = max(newestArrivedSendNanos, sent.sendTimeNanos) }
        }
        for result in results {
            guard let sent = history.entry(for: result.sequenceNumber) else {
                unknownPackets += 1
                continue
            }
            // A packet still in the pacer was never sent: it says nothing about the link (and its
            // send time, `notSentYet`, would make any run of losses before it look a second long).
            if sent.sendTimeNanos != Self.notSentYet { noteOutage(lost: result.status == .notReceived, sentNanos: sent.sendTimeNanos) }
            // Received without a delta: it arrived, but when is unknown; it neither counts as lost
            // nor feeds the delay filter.
            if result.status == .receivedWithoutDelta { continue }
            if result.arrivalTimeMicros == nil, sent.sendTimeNanos > newestArrivedSendNanos { continue }
            packets.append(PacketFeedback(sequenceNumber: sent.sequenceNumber, sendTimeNanos: sent.sendTimeNanos, sizeBytes: sent.sizeBytes,
                                          arrivalTimeNanos: result.arrivalTimeMicros.map { $0 * 1000 }, probeClusterID: sent.probeClusterID))
        }
        // The pacer lets audio and retransmissions overtake video numbered before them: the delay
        // filter compares packets in the order they left.
        packets.sort { ($0.sendTimeNanos, $0.sequenceNumber) < ($1.sendTimeNanos, $1.sequenceNumber) }
        return estimator.update(feedback: packets, roundTripNanos: roundTripNanos, nowNanos: nowNanos)
    }

    /// Follows runs of lost packets across feedback packets; a run spanning ``outageNanos`` of
    /// sending counts once in ``outages``.
    private mutating func noteOutage(lost: Bool, sentNanos: Int64) {
        guard lost else {
            lostRun = nil
            return
        }
        guard let run = lostRun else {
            lostRun = (sentNanos, false)
            return
        }
        if !run.counted && sentNanos - run.firstSentNanos >= Self.outageNanos {
            outages += 1
            lostRun?.counted = true
        }
    }
}
