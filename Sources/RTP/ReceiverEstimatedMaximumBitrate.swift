import NIOCore

/// Receiver Estimated Maximum Bitrate, draft-alvestrand-rmcat-remb-03 §2.2: an application-layer
/// feedback message (PSFB, FMT=15) in which the receiver tells the sender the total bitrate it
/// estimates the path can carry for the listed SSRCs; the encoder's target should stay below it.
///
///     |V=2|P| FMT=15  |   PT=206      |             length            |
///     |                  SSRC of packet sender                        |
///     |                  SSRC of media source (0)                     |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |  Unique identifier 'R' 'E' 'M' 'B'                            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |  Num SSRC     | BR Exp    |  BR Mantissa                      |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |   SSRC feedback                                               |
///     :  ...                                                          :
///
/// Bitrate = mantissa (18 bits) × 2^exp (6 bits), in bits per second.
public struct ReceiverEstimatedMaximumBitrate: Sendable, Equatable {
    /// "REMB" in ASCII.
    static let identifier: UInt32 = 0x5245_4D42
    static let mantissaBits: UInt32 = 18
    static let mantissaMask: UInt32 = (1 << mantissaBits) - 1
    static let exponentMask: UInt32 = 0x3F
    static let maxSSRCs = Int(UInt8.max)
    /// Identifier + count/exponent/mantissa word.
    static let fixedFCISize = 8

    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    /// The estimate, rounded down to what 18 bits of mantissa can express.
    public private(set) var bitrateBitsPerSecond: UInt64
    public private(set) var ssrcs: [UInt32]

    /// Up to 255 SSRCs; the bitrate is rounded down to `mantissa × 2^exp`.
    public init(senderSSRC: UInt32, mediaSSRC: UInt32 = 0, bitrateBitsPerSecond: UInt64, ssrcs: [UInt32]) throws(RTPError) {
        guard ssrcs.count <= Self.maxSSRCs else {
            throw .valueOutOfRange(field: "REMB SSRC count", value: ssrcs.count)
        }
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        let (mantissa, exponent) = Self.split(bitrateBitsPerSecond)
        self.bitrateBitsPerSecond = UInt64(mantissa) << exponent
        self.ssrcs = ssrcs
    }

    /// Whether a PSFB FMT=15 packet body is REMB rather than another application-layer message.
    static func isREMB(_ packet: RTCPPacketSlice) -> Bool {
        packet.body.getInteger(at: packet.body.readerIndex + RTCPFeedbackHeader.size - RTCPHeader.size, as: UInt32.self) == identifier
    }

    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        var (header, fci, _) = try RTCPFeedbackHeader.read(
            from: &buffer, packetType: RTCPPacketType.payloadSpecificFeedback, format: RTCPFeedbackFormat.applicationLayer
        )
        let identifier: UInt32 = try fci.readRequiredInteger()
        guard identifier == Self.identifier else {
            throw .valueOutOfRange(field: "REMB identifier", value: Int(identifier))
        }
        let word: UInt32 = try fci.readRequiredInteger()
        let count = Int(word >> 24)
        let exponent = (word >> Self.mantissaBits) & Self.exponentMask
        let mantissa = UInt64(word & Self.mantissaMask)
        // An 18-bit mantissa shifted by up to 63 can overflow 64 bits.
        guard mantissa == 0 || mantissa.leadingZeroBitCount >= exponent else {
            throw .valueOutOfRange(field: "REMB exponent", value: Int(exponent))
        }
        guard fci.readableBytes == count * 4 else {
            throw .invalidLength(field: "REMB SSRC list", length: fci.readableBytes)
        }
        var ssrcs: [UInt32] = []
        for _ in 0..<count { ssrcs.append(try fci.readRequiredInteger()) }
        senderSSRC = header.senderSSRC
        mediaSSRC = header.mediaSSRC
        bitrateBitsPerSecond = mantissa << exponent
        self.ssrcs = ssrcs
    }

    public var encodedSize: Int { RTCPFeedbackHeader.size + Self.fixedFCISize + ssrcs.count * 4 }

    public func write(to buffer: inout ByteBuffer) {
        RTCPFeedbackHeader(senderSSRC: senderSSRC, mediaSSRC: mediaSSRC).write(
            to: &buffer, packetType: RTCPPacketType.payloadSpecificFeedback,
            format: RTCPFeedbackFormat.applicationLayer, packetSize: encodedSize
        )
        buffer.writeInteger(Self.identifier)
        let (mantissa, exponent) = Self.split(bitrateBitsPerSecond)
        buffer.writeInteger(UInt32(ssrcs.count) << 24 | exponent << Self.mantissaBits | mantissa)
        for ssrc in ssrcs { buffer.writeInteger(ssrc) }
    }

    /// The smallest exponent whose mantissa fits 18 bits.
    private static func split(_ bitrate: UInt64) -> (mantissa: UInt32, exponent: UInt32) {
        let significantBits = UInt64.bitWidth - bitrate.leadingZeroBitCount
        let exponent = max(0, significantBits - Int(mantissaBits))
        return (UInt32(truncatingIfNeeded: bitrate >> exponent), UInt32(exponent))
    }
}
