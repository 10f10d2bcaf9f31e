import NIOCore

/// RTCP packet types (RFC 3550 §12.1, RFC 4585 §6.1) and feedback message types (FMT).
public enum RTCPPacketType {
    public static let senderReport: UInt8 = 200
    public static let receiverReport: UInt8 = 201
    public static let sourceDescription: UInt8 = 202
    public static let goodbye: UInt8 = 203
    public static let applicationDefined: UInt8 = 204
    /// Transport layer feedback, RFC 4585 §6.2.
    public static let transportFeedback: UInt8 = 205
    /// Payload-specific feedback, RFC 4585 §6.3.
    public static let payloadSpecificFeedback: UInt8 = 206
    /// RFC 5761 §4: RTP payload types that would collide with these RTCP types (second byte 192–223).
    public static let demultiplexRange: ClosedRange<UInt8> = 192...223
}

/// Feedback message types in the FMT field (RFC 4585 §6.2, §6.3; RFC 5104 §4.3).
public enum RTCPFeedbackFormat {
    /// RTPFB FMT=1.
    public static let genericNACK: UInt8 = 1
    /// RTPFB FMT=15, draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1.
    public static let transportWideCC: UInt8 = 15
    /// PSFB FMT=1.
    public static let pictureLossIndication: UInt8 = 1
    /// PSFB FMT=4.
    public static let fullIntraRequest: UInt8 = 4
    /// PSFB FMT=15, used by REMB.
    public static let applicationLayer: UInt8 = 15
}

/// The RTCP common header, RFC 3550 §6.4.1.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|  RC/FMT |      PT       |             length            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// `length` is the packet size in 32-bit words minus one, header and padding included.
public struct RTCPHeader: Sendable, Equatable {
    public static let size = 4
    public static let version: UInt8 = 2
    /// RC, SC and FMT are 5 bits.
    public static let maxCount: UInt8 = 31
    /// The largest packet a 16-bit word count can describe.
    public static let maxPacketSize = (Int(UInt16.max) + 1) * 4
    static let versionShift: UInt8 = 6
    static let paddingBit: UInt8 = 0x20
    static let countMask: UInt8 = 0x1F

    public var padding: Bool
    /// Reception report count, source count or feedback message type, by packet type.
    public var count: UInt8
    public var packetType: UInt8
    public var length: UInt16

    public init(padding: Bool = false, count: UInt8, packetType: UInt8, length: UInt16) {
        self.padding = padding
        self.count = count
        self.packetType = packetType
        self.length = length
    }

    /// A header for a packet of `packetSize` bytes (a multiple of four, as every encoder here produces).
    init(count: UInt8, packetType: UInt8, packetSize: Int) {
        self.init(count: count, packetType: packetType, length: UInt16(truncatingIfNeeded: packetSize / 4 - 1))
    }

    /// Total packet size in bytes, header included.
    public var packetSize: Int { (Int(length) + 1) * 4 }

    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        var copy = buffer
        try copy.requireReadable(Self.size)
        let first: UInt8 = try copy.readRequiredInteger()
        let version = first >> Self.versionShift
        guard version == Self.version else { throw .unsupportedVersion(version) }
        let packetType: UInt8 = try copy.readRequiredInteger()
        let length: UInt16 = try copy.readRequiredInteger()
        self.init(padding: first & Self.paddingBit != 0, count: first & Self.countMask, packetType: packetType, length: length)
        buffer = copy
    }

    public var encodedSize: Int { Self.size }

    public func write(to buffer: inout ByteBuffer) {
        buffer.writeInteger(Self.version << Self.versionShift | (padding ? Self.paddingBit : 0) | count & Self.countMask)
        buffer.writeInteger(packetType)
        buffer.writeInteger(length)
    }
}

/// One RTCP packet cut out of a datagram: its header and body, with and without padding.
struct RTCPPacketSlice {
    var header: RTCPHeader
    /// The body after the header, padding removed.
    var body: ByteBuffer
    /// The body after the header as on the wire, padding included.
    var rawBody: ByteBuffer

    /// Reads exactly one packet (as `length` says) from `buffer`.
    init(from buffer: inout ByteBuffer) throws(RTPError) {
        var copy = buffer
        header = try RTCPHeader(from: &copy)
        rawBody = try copy.readRequiredSlice(length: header.packetSize - RTCPHeader.size)
        body = rawBody
        if header.padding {
            let count = Int(rawBody.getInteger(at: rawBody.writerIndex - 1, as: UInt8.self) ?? 0)
            guard count > 0, count <= rawBody.readableBytes else {
                throw .invalidPadding(count: count, available: rawBody.readableBytes)
            }
            body.moveWriterIndex(to: body.writerIndex - count)
        }
        buffer = copy
    }

    /// Reads one packet and checks its type (and FMT, for feedback messages).
    init(from buffer: inout ByteBuffer, packetType: UInt8, format: UInt8? = nil) throws(RTPError) {
        var copy = buffer
        try self.init(from: &copy)
        guard header.packetType == packetType else {
            throw .unexpectedPacketType(expected: packetType, actual: header.packetType)
        }
        if let format, header.count != format {
            throw .unexpectedFeedbackFormat(expected: format, actual: header.count)
        }
        buffer = copy
    }

    /// Throws unless the body was consumed exactly (up to `tolerance` trailing bytes).
    func requireConsumed(_ rest: ByteBuffer, tolerance: Int = 0) throws(RTPError) {
        guard rest.readableBytes <= tolerance else {
            throw .invalidLength(field: "RTCP packet type \(header.packetType)", length: header.packetSize)
        }
    }
}
