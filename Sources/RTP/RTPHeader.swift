import NIOCore

/// The RTP fixed header, RFC 3550 §5.1, with CSRCs and an optional extension block (§5.3.1).
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|X|  CC   |M|     PT      |       sequence number         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                           timestamp                           |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |           synchronization source (SSRC) identifier            |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |            contributing source (CSRC) identifiers             |
///     |                             ....                              |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// The padding bit (P) belongs to the packet, not the header: ``RTPPacket/paddingSize`` decides it,
/// so a header can never claim padding that is not there. The X bit is `headerExtension != nil`.
/// Payload type and CSRCs have fields narrower than their Swift types; they are checked once in the
/// throwing init and then read-only.
public struct RTPHeader: Sendable, Equatable {
    public static let version: UInt8 = 2
    public static let fixedSize = 12
    public static let maxCSRCCount = 15
    public static let maxPayloadType: UInt8 = 127
    static let versionShift: UInt8 = 6
    static let paddingBit: UInt8 = 0x20
    static let extensionBit: UInt8 = 0x10
    static let csrcCountMask: UInt8 = 0x0F
    static let markerBit: UInt8 = 0x80
    static let payloadTypeMask: UInt8 = 0x7F

    public var marker: Bool
    public private(set) var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    public private(set) var csrcs: [UInt32]
    public var headerExtension: RTPHeaderExtension?

    public init(
        marker: Bool = false,
        payloadType: UInt8,
        sequenceNumber: UInt16,
        timestamp: UInt32,
        ssrc: UInt32,
        csrcs: [UInt32] = [],
        headerExtension: RTPHeaderExtension? = nil
    ) throws(RTPError) {
        guard payloadType <= Self.maxPayloadType else {
            throw .valueOutOfRange(field: "payload type", value: Int(payloadType))
        }
        guard csrcs.count <= Self.maxCSRCCount else {
            throw .valueOutOfRange(field: "CSRC count", value: csrcs.count)
        }
        self.init(
            unchecked: marker, payloadType: payloadType, sequenceNumber: sequenceNumber,
            timestamp: timestamp, ssrc: ssrc, csrcs: csrcs, headerExtension: headerExtension
        )
    }

    /// For callers that validated the payload type and CSRC count already (the packetizer, RTX).
    init(
        unchecked marker: Bool, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32,
        ssrc: UInt32, csrcs: [UInt32], headerExtension: RTPHeaderExtension?
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.headerExtension = headerExtension
    }

    /// Reads the header; the padding bit is ignored here (``RTPPacket`` handles it).
    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        self = try Self.decode(from: &buffer).header
    }

    /// Reads the header and reports the P bit for the packet decoder.
    static func decode(from buffer: inout ByteBuffer) throws(RTPError) -> (header: RTPHeader, hasPadding: Bool) {
        var copy = buffer
        try copy.requireReadable(fixedSize)
        let first: UInt8 = try copy.readRequiredInteger()
        let second: UInt8 = try copy.readRequiredInteger()
        let version = first >> versionShift
        guard version == Self.version else { throw .unsupportedVersion(version) }
        let sequenceNumber: UInt16 = try copy.readRequiredInteger()
        let timestamp: UInt32 = try copy.readRequiredInteger()
        let ssrc: UInt32 = try copy.readRequiredInteger()
        let csrcCount = Int(first & csrcCountMask)
        try copy.requireReadable(csrcCount * 4)
        var csrcs: [UInt32] = []
        if csrcCount > 0 {
            csrcs.reserveCapacity(csrcCount)
            for _ in 0..<csrcCount { csrcs.append(try copy.readRequiredInteger()) }
        }
        let headerExtension = first & extensionBit != 0 ? try RTPHeaderExtension(from: &copy) : nil
        buffer = copy
        let header = RTPHeader(
            unchecked: second & markerBit != 0, payloadType: second & payloadTypeMask,
            sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc, csrcs: csrcs,
            headerExtension: headerExtension
        )
        return (header, first & paddingBit != 0)
    }

    public var encodedSize: Int {
        Self.fixedSize + csrcs.count * 4 + (headerExtension?.encodedSize ?? 0)
    }

    public func write(to buffer: inout ByteBuffer) {
        write(to: &buffer, hasPadding: false)
    }

    func write(to buffer: inout ByteBuffer, hasPadding: Bool) {
        var first = Self.version << Self.versionShift | UInt8(csrcs.count)
        if hasPadding { first |= Self.paddingBit }
        if headerExtension != nil { first |= Self.extensionBit }
        buffer.writeInteger(first)
        buffer.writeInteger((marker ? Self.markerBit : 0) | payloadType)
        buffer.writeInteger(sequenceNumber)
        buffer.writeInteger(timestamp)
        buffer.writeInteger(ssrc)
        for csrc in csrcs { buffer.writeInteger(csrc) }
        headerExtension?.write(to: &buffer)
    }
}
