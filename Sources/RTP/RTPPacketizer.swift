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
    /// last. `extensions` says which header extension block goes on which packet.
    public mutating func packetize(
        _ frame: Payloader.Frame, captureTimeNanos: Int64, extensions: FrameHeaderExtensions = FrameHeaderExtensions()
    ) throws(RTPError) -> [RTPPacket] {
        packetize(payloads: try payloader.payloads(for: frame), captureTimeNanos: captureTimeNanos, extensions: extensions)
    }

    /// The packets around payloads made elsewhere (one frame's, shared by several senders that
    /// packetize it alike): only the headers are this sender's.
    public mutating func packetize(
        payloads: [ByteBuffer], captureTimeNanos: Int64, extensions: FrameHeaderExtensions = FrameHeaderExtensions()
    ) -> [RTPPacket] {
        let timestamp = rtpTimestamp(captureTimeNanos: captureTimeNanos)
        var packets: [RTPPacket] = []
        packets.reserveCapacity(payloads.count)
        for (index, payload) in payloads.enumerated() {
            let isLast = index == payloads.count - 1
            let header = RTPHeader(
                unchecked: isLast, payloadType: payloadType, sequenceNumber: sequencer.next(),
                timestamp: timestamp, ssrc: ssrc, csrcs: [],
                headerExtension: extensions.block(isFirst: index == 0, isLast: isLast)
            )
            packets.append(RTPPacket(header: header, payload: payload))
        }
        return packets
    }
}

/// The header extension blocks for the packets of one frame, by the packet's place in it. Each
/// block holds all the elements that packet carries (an RTP header has one block).
public struct FrameHeaderExtensions: Sendable {
    /// On every packet that has no block of its own below (e.g. the transport-wide sequence number template).
    public var every: RTPHeaderExtension?
    /// On the first packet (e.g. ``AbsoluteCaptureTime``, which libwebrtc sends there).
    public var first: RTPHeaderExtension?
    /// On the last packet (e.g. ``VideoOrientation``, which TS 26.114 §7.4.5 puts on a frame's last packet).
    public var last: RTPHeaderExtension?
    /// On a frame's only packet, which is first and last at once (nil: ``last``, else ``first``).
    public var only: RTPHeaderExtension?

    public init(every: RTPHeaderExtension? = nil, first: RTPHeaderExtension? = nil, last: RTPHeaderExtension? = nil,
                only: RTPHeaderExtension? = nil) {
        self.every = every
        self.first = first
        self.last = last
        self.only = only
    }

    func block(isFirst: Bool, isLast: Bool) -> RTPHeaderExtension? {
        switch (isFirst, isLast) {
        case (true, true): only ?? last ?? first ?? every
        case (true, false): first ?? every
        case (false, true): last ?? every
        case (false, false): every
        }
    }
}
