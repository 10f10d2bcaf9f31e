import NIOCore

/// The transport-wide sequence number header extension, draft-holmer-rmcat-transport-wide-cc-extensions-01
/// §2: one counter across every RTP stream of a transport (video, RTX, audio), so the receiver's
/// transport-cc feedback can say, per packet, when it arrived.
///
///      0                   1                   2
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |  ID   | L=1   |transport-wide sequence number |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// A sender numbers packets as they leave, after the packetizer built them (a retransmission gets
/// a new number). To do that without building an extension per packet, it puts a *template* on
/// its packets — a one-byte-form block whose first element is this one, number zero — and
/// overwrites the two bytes in the serialized packet (``sequenceNumberOffset(in:)``) before SRTP
/// protects it.
public struct TransportWideSequenceNumber: Sendable, Equatable {
    public static let uri = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    public static let dataSize = 2
    /// The one-byte element header before the number.
    static let elementHeaderSize = 1

    public var value: UInt16

    public init(value: UInt16) { self.value = value }

    /// This element's value in `headerExtension`, when it has one with `id`.
    public init?(in headerExtension: RTPHeaderExtension, id: UInt8) {
        guard var data = headerExtension.element(id: id), data.readableBytes == Self.dataSize,
              let value = data.readInteger(as: UInt16.self) else { return nil }
        self.value = value
    }

    /// A one-byte-form block: this element (number 0) first, then `others` (e.g. the video orientation).
    public static func template(id: UInt8, followedBy others: [RTPHeaderExtensionElement] = []) throws(RTPError) -> RTPHeaderExtension {
        var data = ByteBuffer()
        data.writeInteger(UInt16(0))
        return try RTPHeaderExtension(oneByteElements: [RTPHeaderExtensionElement(id: id, data: data)] + others)
    }

    /// Where the number's two bytes sit in the serialized packet whose header carries a
    /// ``template(id:followedBy:)`` block: after the fixed header, the CSRCs, the block's own header
    /// and the element's one-byte header.
    public static func sequenceNumberOffset(in header: RTPHeader) -> Int {
        RTPHeader.fixedSize + 4 * header.csrcs.count + RTPHeaderExtension.headerSize + elementHeaderSize
    }
}
