import NIOCore

/// Wraps a payloader's output in RTP headers (RFC 3550 §5.1): owns the SSRC, the sequence numbers,
/// the timestamp mapping and the marker bit.
///
/// Timestamps come from capture times, not from a frame counter: `timestamp = offset + ticks(captureTimeNanos)`,
/// so a dropped or late frame cannot make the RTP clock drift from the capture clock, and the same
/// mapping answers "which RTP time is this wall-clock instant" for Sender Reports.
/// The sequencer and the initial offset are parameters so tests pin them; production draws both at
/// random (RFC 3550 §5.1: "SHOULD be random").
public struct RTPPacketizer<Payloader: RTPPayloader>: Sendable {
    public let ssrc: UInt32
    public let payloadType: UInt8
    /// Added to every timestamp: the random initial RTP timestamp.
    public let timestampOffset: UInt32
    public var payloader: Payloader
    public private(set) var sequencer: RTPSequencer

    public init(
        ssrc: UInt32, payloadType: UInt8, payloader: Payloader, sequencer: RTPSequencer, timestampOffset: UInt32
    ) throws(RTPError) {
        guard payloadType <= RTPHeader.maxPayloadType else {
            throw .valueOutOfRange(field: "payload type", value: Int(payloadType))
        }
        self.ssrc = ssrc
        self.payloadType = payloadType
        self.payloader = payloader
        self.sequencer = sequencer
        self.timestampOffset = timestampOffset
    }

    /// Draws the initial sequence number and timestamp offset from `generator`.
    public init(
        ssrc: UInt32, payloadType: UInt8, payloader: Payloader, using generator: inout some RandomNumberGenerator
    ) throws(RTPError) {
        let sequencer = RTPSequencer(using: &generator)
        let offset = UInt32.random(in: .min ... .max, using: &generator)
        try self.init(ssrc: ssrc, payloadType: payloadType, payloader: payloader, sequencer: sequencer, timestampOffset: offset)
    }

    /// The RTP timestamp of a capture instant on this stream's clock.
    public func rtpTimestamp(captureTimeNanos: Int64) -> UInt32 {
        Payloader.clock.timestamp(fromNanos: captureTimeNanos, offset: timestampOffset)
    }

    /// The packets of one frame: one timestamp, consecutive sequence numbers, the marker bit on the
    /// last. `packetExtension` (e.g. the transport-wide sequence number template) goes on every
    /// packet; `lastPacketExtension` (e.g. ``VideoOrientation``, which TS 26.114 §7.4.5 puts on the
    /// last packet of a frame) replaces it on the last packet.
    public mutating func packetize(
        _ frame: Payloader.Frame, captureTimeNanos: Int64, packetExtension: RTPHeaderExtension? = nil,
        lastPacketExtension: RTPHeaderExtension? = nil
    ) throws(RTPError) -> [RTPPacket] {
        let payloads = try payloader.payloads(for: frame)
        let timestamp = rtpTimestamp(captureTimeNanos: captureTimeNanos)
        var packets: [RTPPacket] = []
        packets.reserveCapacity(payloads.count)
        for (index, payload) in payloads.enumerated() {
            let isLast = index == payloads.count - 1
            let header = RTPHeader(
                unchecked: isLast, payloadType: payloadType, sequenceNumber: sequencer.next(),
                timestamp: timestamp, ssrc: ssrc, csrcs: [], headerExtension: isLast ? lastPacketExtension ?? packetExtension : packetExtension
            )
            packets.append(RTPPacket(header: header, payload: payload))
        }
        return packets
    }
}
