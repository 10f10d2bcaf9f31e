import NIOCore

/// One NACK FCI entry: a lost packet ID and a bitmask of the 16 following sequence numbers.
public struct NACKPair: Sendable, Equatable {
    /// Packet ID: a lost sequence number.
    public var packetID: UInt16
    /// Bitmask of following lost packets: bit i (LSB = 0) set means `packetID + i + 1` is lost too.
    public var lostPacketBitmask: UInt16

    public init(packetID: UInt16, lostPacketBitmask: UInt16) {
        self.packetID = packetID
        self.lostPacketBitmask = lostPacketBitmask
    }

    /// The sequence numbers this entry reports lost, in order (wrapping past 65535).
    public var lostSequenceNumbers: [UInt16] {
        var result = [packetID]
        for bit in 0..<16 where lostPacketBitmask & (1 << bit) != 0 {
            result.append(packetID &+ UInt16(bit + 1))
        }
        return result
    }
}

/// Generic NACK, RFC 4585 §6.2.1: the receiver asks for retransmission of lost packets, answered
/// from ``RTPSendHistory`` (as RTX, RFC 4588, where negotiated).
///
///     |V=2|P| FMT=1   |   PT=RTPFB=205|          length               |
///     |                  SSRC of packet sender                        |
///     |                  SSRC of media source                         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |            PID                |             BLP               |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     :                  (one word per NACK pair)                     :
public struct GenericNACK: Sendable, Equatable {
    static let pairSize = 4
    static let maxPairs = (RTCPHeader.maxPacketSize - RTCPFeedbackHeader.size) / pairSize
    /// A BLP covers the 16 sequence numbers after its PID.
    static let bitmaskSpan: UInt16 = 16

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    public private(set) var pairs: [NACKPair]

    public init(senderSSRC: UInt32, mediaSSRC: UInt32, pairs: [NACKPair]) throws(RTPError) {
        guard pairs.count <= Self.maxPairs else {
            throw .valueOutOfRange(field: "NACK pair count", value: pairs.count)
        }
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.pairs = pairs
    }

    /// Packs lost sequence numbers, given in ascending order modulo 2¹⁶ (as a receiver finds them),
    /// into as few pairs as a greedy pass allows: each pair starts at the first number its
    /// predecessor could not cover.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32, lostSequenceNumbers: [UInt16]) throws(RTPError) {
        var pairs: [NACKPair] = []
        for sequenceNumber in lostSequenceNumbers {
            if let last = pairs.last {
                let distance = sequenceNumber &- last.packetID
                if distance == 0 { continue }
                if distance <= Self.bitmaskSpan {
                    pairs[pairs.count - 1].lostPacketBitmask |= 1 << (distance - 1)
                    continue
                }
            }
            pairs.append(NACKPair(packetID: sequenceNumber, lostPacketBitmask: 0))
        }
        try self.init(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, pairs: pairs)
    }

    /// Every sequence number reported lost, pair by pair.
    public var lostSequenceNumbers: [UInt16] { pairs.flatMap(\.lostSequenceNumbers) }

    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        var (header, fci, _) = try RTCPFeedbackHeader.read(
            from: &buffer, packetType: RTCPPacketType.transportFeedback, format: RTCPFeedbackFormat.genericNACK
        )
        var pairs: [NACKPair] = []
        pairs.reserveCapacity(fci.readableBytes / Self.pairSize)
        while fci.readableBytes > 0 {
            pairs.append(NACKPair(packetID: try fci.readRequiredInteger(), lostPacketBitmask: try fci.readRequiredInteger()))
        }
        senderSSRC = header.senderSSRC
        mediaSSRC = header.mediaSSRC
        self.pairs = pairs
    }

    public var encodedSize: Int { RTCPFeedbackHeader.size + pairs.count * Self.pairSize }

    public func write(to buffer: inout ByteBuffer) {
        RTCPFeedbackHeader(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC).write(
            to: &buffer, packetType: RTCPPacketType.transportFeedback,
            format: RTCPFeedbackFormat.genericNACK, packetSize: encodedSize
        )
        for pair in pairs {
            buffer.writeInteger(pair.packetID)
            buffer.writeInteger(pair.lostPacketBitmask)
        }
    }
}
