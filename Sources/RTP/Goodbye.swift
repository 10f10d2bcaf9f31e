import NIOCore

/// Goodbye (BYE), RFC 3550 §6.6: the listed sources leave the session, optionally with a reason.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|    SC   |   PT=BYE=203  |             length            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                           SSRC/CSRC                           |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     :                              ...                              :
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |     length    |               reason for leaving            ...
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
public struct Goodbye: Sendable, Equatable {
    static let maxReasonLength = 255

    public private(set) var sources: [UInt32]
    /// Decoded leniently: invalid UTF-8 becomes U+FFFD. Each such byte then takes three, so a
    /// reason that grows past 255 bytes is refused, as an SDES item's text is.
    public private(set) var reason: String?

    /// At most 31 sources (the SC field) and 255 bytes of reason.
    public init(sources: [UInt32], reason: String? = nil) throws(RTPError) {
        guard sources.count <= Int(RTCPHeader.maxCount) else {
            throw .valueOutOfRange(field: "BYE source count", value: sources.count)
        }
        if let reason, reason.utf8.count > Self.maxReasonLength {
            throw .invalidLength(field: "BYE reason", length: reason.utf8.count)
        }
        self.sources = sources
        self.reason = reason
    }

    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        let packet = try RTCPPacketSlice(from: &buffer, packetType: RTCPPacketType.goodbye)
        var body = packet.body
        try body.requireReadable(Int(packet.header.count) * 4)
        var sources: [UInt32] = []
        for _ in 0..<packet.header.count { sources.append(try body.readRequiredInteger()) }
        var reason: String?
        if body.readableBytes > 0 {
            let length = Int(try body.readRequiredInteger(as: UInt8.self))
            reason = String(buffer: try body.readRequiredSlice(length: length))
            _ = try body.readRequiredSlice(length: paddingToWordBoundary(1 + length))
        }
        try packet.requireConsumed(body)
        // The limits of a BYE we build, so a BYE read can be written: its length octet cannot say more.
        try self.init(sources: sources, reason: reason)
    }

    private var reasonSize: Int {
        guard let reason else { return 0 }
        let size = 1 + reason.utf8.count
        return size + paddingToWordBoundary(size)
    }

    public var encodedSize: Int { RTCPHeader.size + sources.count * 4 + reasonSize }

    public func write(to buffer: inout ByteBuffer) {
        RTCPHeader(count: UInt8(sources.count), packetType: RTCPPacketType.goodbye, packetSize: encodedSize)
            .write(to: &buffer)
        for source in sources { buffer.writeInteger(source) }
        if let reason {
            buffer.writeInteger(UInt8(reason.utf8.count))
            buffer.writeString(reason)
            buffer.writeZeros(paddingToWordBoundary(1 + reason.utf8.count))
        }
    }
}
