import NIOCore

/// The first 1–3 bytes of every chunk: header format and chunk stream id (RTMP spec §5.3.1.1).
/// ```
///  0 1 2 3 4 5 6 7      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3
/// +-+-+-+-+-+-+-+-+    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
/// |fmt|   cs id   |    |fmt|     0     |  cs id - 64   |    |fmt|     1     |       cs id - 64 (LE)         |
/// +-+-+-+-+-+-+-+-+    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///   ids 2...63            ids 64...319                          ids 64...65599
/// ```
struct RTMPChunkBasicHeader: Sendable, Hashable {
    static let formatShift: UInt8 = 6
    static let idMask: UInt8 = 0x3F
    static let twoByteMarker: UInt8 = 0
    static let threeByteMarker: UInt8 = 1
    static let idOffset: UInt32 = 64
    static let largestOneByteID: UInt32 = 63
    static let largestTwoByteID: UInt32 = 319
    static let largestID: UInt32 = 65599

    /// 0...3: which message header follows (§5.3.1.2).
    var format: UInt8
    var chunkStreamID: UInt32

    init(format: UInt8, chunkStreamID: UInt32) {
        self.format = format
        self.chunkStreamID = chunkStreamID
    }

    init(from buffer: inout ByteBuffer) throws(RTMPError) {
        let first: UInt8 = try buffer.readRequiredInteger("chunk basic header")
        format = first >> Self.formatShift
        switch first & Self.idMask {
        case Self.twoByteMarker:
            let byte: UInt8 = try buffer.readRequiredInteger("chunk basic header (2-byte form)")
            chunkStreamID = Self.idOffset + UInt32(byte)
        case Self.threeByteMarker:
            let value: UInt16 = try buffer.readRequiredInteger(endianness: .little, "chunk basic header (3-byte form)")
            chunkStreamID = Self.idOffset + UInt32(value)
        case let id:
            chunkStreamID = UInt32(id)
        }
    }

    var encodedSize: Int {
        switch chunkStreamID {
        case ...Self.largestOneByteID: return 1
        case ...Self.largestTwoByteID: return 2
        default: return 3
        }
    }

    /// Writes the shortest form. Ids must be in 2...65599 (0 and 1 are the length markers).
    func write(to buffer: inout ByteBuffer) {
        let formatBits = format << Self.formatShift
        switch encodedSize {
        case 1:
            buffer.writeInteger(formatBits | UInt8(chunkStreamID))
        case 2:
            buffer.writeInteger(formatBits | Self.twoByteMarker)
            buffer.writeInteger(UInt8(chunkStreamID - Self.idOffset))
        default:
            buffer.writeInteger(formatBits | Self.threeByteMarker)
            buffer.writeInteger(UInt16(truncatingIfNeeded: chunkStreamID - Self.idOffset), endianness: .little)
        }
    }
}
