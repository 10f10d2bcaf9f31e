import NIOCore

/// One FIR entry: the source that must send a key frame and the request's command sequence number.
public struct FullIntraRequestEntry: Sendable, Equatable {
    public var ssrc: UInt32
    /// Incremented by the requester for each new request; a repeat with the same number is a
    /// retransmission of the same request (RFC 5104 §4.3.1.2).
    public var sequenceNumber: UInt8

    public init(ssrc: UInt32, sequenceNumber: UInt8) {
        self.ssrc = ssrc
        self.sequenceNumber = sequenceNumber
    }
}

/// Full Intra Request, RFC 5104 §4.3.1: a demand for a decoder refresh point (key frame), e.g. from
/// an MCU when a new participant joins.
///
///     |V=2|P| FMT=4   |   PT=PSFB=206 |          length               |
///     |                  SSRC of packet sender                        |
///     |                  SSRC of media source (unused, 0)             |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                              SSRC                             |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     | Seq nr.       |    Reserved                                   |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     :                  (one 8-byte entry per requested source)      :
public struct FullIntraRequest: Sendable, Equatable {
    static let entrySize = 8
    static let reservedSize = 3
    static let maxEntries = (RTCPHeader.maxPacketSize - RTCPFeedbackHeader.size) / entrySize

    public var senderSSRC: UInt32
    /// RFC 5104 §4.3.1.2 says 0; kept as received.
    public var mediaSSRC: UInt32
    public private(set) var entries: [FullIntraRequestEntry]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, entries: [FullIntraRequestEntry]) throws(RTPError) {
        guard entries.count <= Self.maxEntries else {
            throw .valueOutOfRange(field: "FIR entry count", value: entries.count)
        }
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.entries = entries
    }

    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        var (header, fci, _) = try RTCPFeedbackHeader.read(
            from: &buffer, packetType: RTCPPacketType.payloadSpecificFeedback,
            format: RTCPFeedbackFormat.fullIntraRequest
        )
        guard fci.readableBytes % Self.entrySize == 0 else {
            throw .invalidLength(field: "FIR FCI", length: fci.readableBytes)
        }
        var entries: [FullIntraRequestEntry] = []
        while fci.readableBytes > 0 {
            let ssrc: UInt32 = try fci.readRequiredInteger()
            let sequenceNumber: UInt8 = try fci.readRequiredInteger()
            _ = try fci.readRequiredSlice(length: Self.reservedSize)
            entries.append(FullIntraRequestEntry(ssrc: ssrc, sequenceNumber: sequenceNumber))
        }
        senderSSRC = header.senderSSRC
        mediaSSRC = header.mediaSSRC
        self.entries = entries
    }

    public var encodedSize: Int { RTCPFeedbackHeader.size + entries.count * Self.entrySize }

    public func write(to buffer: inout ByteBuffer) {
        RTCPFeedbackHeader(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC).write(
            to: &buffer, packetType: RTCPPacketType.payloadSpecificFeedback,
            format: RTCPFeedbackFormat.fullIntraRequest, packetSize: encodedSize
        )
        for entry in entries {
            buffer.writeInteger(entry.ssrc)
            buffer.writeInteger(entry.sequenceNumber)
            buffer.writeZeros(Self.reservedSize)
        }
    }
}
