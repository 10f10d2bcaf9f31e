import NIOCore

/// One SDES item, RFC 3550 §6.5: a type octet, a length octet and up to 255 bytes of UTF-8 text.
public struct SourceDescriptionItem: Sendable, Equatable {
    /// Item types, RFC 3550 §6.5.1–6.5.8.
    public static let typeCNAME: UInt8 = 1
    public static let typeName: UInt8 = 2
    public static let typeTool: UInt8 = 6
    static let endType: UInt8 = 0
    static let maxTextLength = 255

    public let type: UInt8
    /// Decoded leniently: invalid UTF-8 becomes U+FFFD.
    public let text: String

    /// Type 0 is the end-of-list marker and cannot be an item.
    public init(type: UInt8, text: String) throws(RTPError) {
        guard type != Self.endType else { throw .valueOutOfRange(field: "SDES item type", value: 0) }
        guard text.utf8.count <= Self.maxTextLength else {
            throw .invalidLength(field: "SDES item text", length: text.utf8.count)
        }
        self.type = type
        self.text = text
    }

    var encodedSize: Int { 2 + text.utf8.count }
}

/// The items describing one source.
public struct SourceDescriptionChunk: Sendable, Equatable {
    public var ssrc: UInt32
    public var items: [SourceDescriptionItem]

    public init(ssrc: UInt32, items: [SourceDescriptionItem]) {
        self.ssrc = ssrc
        self.items = items
    }

    /// SSRC + items + at least one null octet, padded to a word (RFC 3550 §6.5).
    var encodedSize: Int {
        let itemsSize = items.reduce(0) { $0 + $1.encodedSize }
        return 4 + itemsSize + (4 - itemsSize % 4)
    }
}

/// Source Description, RFC 3550 §6.5. Every compound packet carries one with our CNAME, which is
/// how a receiver groups audio and video SSRCs of one participant for lip sync.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|    SC   |  PT=SDES=202  |             length            |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |                          SSRC/CSRC_1                          |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |    type       |     length    | text ...                      |
///     +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
///     |                          SSRC/CSRC_2 ...                      |
///
/// Each chunk's item list ends with a null octet, then zeros to the next word.
public struct SourceDescription: Sendable, Equatable {
    public private(set) var chunks: [SourceDescriptionChunk]

    /// At most 31 chunks (the SC field).
    public init(chunks: [SourceDescriptionChunk]) throws(RTPError) {
        guard chunks.count <= Int(RTCPHeader.maxCount) else {
            throw .valueOutOfRange(field: "SDES chunk count", value: chunks.count)
        }
        self.chunks = chunks
        guard encodedSize <= RTCPHeader.maxPacketSize else {
            throw .invalidLength(field: "SDES packet", length: encodedSize)
        }
    }

    /// The usual one-chunk packet with a CNAME (RFC 3550 §6.5.1).
    public init(ssrc: UInt32, cname: String) throws(RTPError) {
        let item = try SourceDescriptionItem(type: SourceDescriptionItem.typeCNAME, text: cname)
        try self.init(chunks: [SourceDescriptionChunk(ssrc: ssrc, items: [item])])
    }

    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        let packet = try RTCPPacketSlice(from: &buffer, packetType: RTCPPacketType.sourceDescription)
        var body = packet.body
        let bodyStart = body.readerIndex
        var chunks: [SourceDescriptionChunk] = []
        for _ in 0..<packet.header.count {
            let ssrc: UInt32 = try body.readRequiredInteger()
            var items: [SourceDescriptionItem] = []
            while true {
                let type: UInt8 = try body.readRequiredInteger()
                if type == SourceDescriptionItem.endType { break }
                let length = Int(try body.readRequiredInteger(as: UInt8.self))
                let text = try body.readRequiredSlice(length: length)
                items.append(try SourceDescriptionItem(type: type, text: String(buffer: text)))
            }
            let padding = paddingToWordBoundary(body.readerIndex - bodyStart)
            _ = try body.readRequiredSlice(length: padding)
            chunks.append(SourceDescriptionChunk(ssrc: ssrc, items: items))
        }
        try packet.requireConsumed(body)
        self.chunks = chunks
    }

    public var encodedSize: Int {
        RTCPHeader.size + chunks.reduce(0) { $0 + $1.encodedSize }
    }

    public func write(to buffer: inout ByteBuffer) {
        RTCPHeader(count: UInt8(chunks.count), packetType: RTCPPacketType.sourceDescription, packetSize: encodedSize)
            .write(to: &buffer)
        for chunk in chunks {
            buffer.writeInteger(chunk.ssrc)
            var itemsSize = 0
            for item in chunk.items {
                buffer.writeInteger(item.type)
                buffer.writeInteger(UInt8(item.text.utf8.count))
                buffer.writeString(item.text)
                itemsSize += item.encodedSize
            }
            buffer.writeZeros(4 - itemsSize % 4)
        }
    }
}
