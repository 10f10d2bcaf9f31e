import MediaCore
import NIOCore

/// RTCP Extended Report (XR), RFC 3611: report blocks beyond RR/SR. livepush reads the receiver
/// reference time block (RRTR, §4.4) a receive-only peer sends in place of a Sender Report and
/// answers it with a DLRR block (§4.5), so that peer can measure the round trip (it has no SR of its
/// own for our reception reports to echo); other block types are kept verbatim.
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|reserved |   PT=XR=207   |             length            |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                              SSRC                             |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |     BT        | type-specific |         block length          |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     :             type-specific block contents                      :
///
/// A block's length is its size in 32-bit words minus one, header included. RRTR (BT=4, length 2)
/// holds a 64-bit NTP timestamp; DLRR (BT=5, length 3 × n) holds n sub-blocks: the receiver's SSRC,
/// the middle 32 bits of its last RRTR's timestamp (LRR) and the delay since we got it (DLRR, in
/// 1/65536 s), from which it computes RTT = arrival − LRR − DLRR as for SR/RR.
public struct ExtendedReport: Sendable, Equatable {
    public static let packetType: UInt8 = 207

    /// One DLRR sub-block, RFC 3611 §4.5.
    public struct DelaySinceLastReceiverReport: Sendable, Equatable {
        public var ssrc: UInt32
        /// The middle 32 bits of the receiver's RRTR timestamp (0: none received).
        public var lastReceiverReport: UInt32
        /// Delay since that RRTR arrived, 1/65536 s.
        public var delay: UInt32

        public init(ssrc: UInt32, lastReceiverReport: UInt32, delay: UInt32) {
            self.ssrc = ssrc
            self.lastReceiverReport = lastReceiverReport
            self.delay = delay
        }

        /// The delay field for a span of nanoseconds (16.16 seconds, saturating).
        public static func delay(nanos: Int64) -> UInt32 {
            UInt32(clamping: max(0, nanos) * 65536 / 1_000_000_000)
        }
    }

    public enum Block: Sendable, Equatable {
        /// RRTR, BT=4: the receiver's wall clock when it sent the report.
        case receiverReferenceTime(NTPTimestamp)
        /// DLRR, BT=5: the answer to RRTRs, one sub-block per receiver.
        case delaySinceLastReceiverReport([DelaySinceLastReceiverReport])
        /// Any other block type, its contents as received.
        case unknown(type: UInt8, typeSpecific: UInt8, contents: ByteBuffer)

        static let receiverReferenceTimeType: UInt8 = 4
        static let delaySinceLastReceiverReportType: UInt8 = 5
        static let headerSize = 4

        var encodedSize: Int {
            switch self {
            case .receiverReferenceTime: Self.headerSize + 8
            case .delaySinceLastReceiverReport(let items): Self.headerSize + 12 * items.count
            case .unknown(_, _, let contents): Self.headerSize + contents.readableBytes
            }
        }

        init(from body: inout ByteBuffer) throws(RTPError) {
            let type: UInt8 = try body.readRequiredInteger()
            let typeSpecific: UInt8 = try body.readRequiredInteger()
            let words: UInt16 = try body.readRequiredInteger()
            var contents = try body.readRequiredSlice(length: Int(words) * 4)
            switch type {
            case Self.receiverReferenceTimeType:
                guard words == 2 else { throw .invalidLength(field: "XR RRTR block", length: Int(words) * 4) }
                self = .receiverReferenceTime(NTPTimestamp(rawValue: try contents.readRequiredInteger()))
            case Self.delaySinceLastReceiverReportType:
                guard words % 3 == 0 else { throw .invalidLength(field: "XR DLRR block", length: Int(words) * 4) }
                var items: [DelaySinceLastReceiverReport] = []
                for _ in 0..<Int(words) / 3 {
                    items.append(DelaySinceLastReceiverReport(ssrc: try contents.readRequiredInteger(), lastReceiverReport: try contents.readRequiredInteger(),
                                                              delay: try contents.readRequiredInteger()))
                }
                self = .delaySinceLastReceiverReport(items)
            default:
                self = .unknown(type: type, typeSpecific: typeSpecific, contents: contents)
            }
        }

        func write(to buffer: inout ByteBuffer) {
            let words = UInt16(truncatingIfNeeded: (encodedSize - Self.headerSize) / 4)
            switch self {
            case .receiverReferenceTime(let time):
                buffer.writeMultipleIntegers(Self.receiverReferenceTimeType, UInt8(0), words, time.rawValue)
            case .delaySinceLastReceiverReport(let items):
                buffer.writeMultipleIntegers(Self.delaySinceLastReceiverReportType, UInt8(0), words)
                for item in items { buffer.writeMultipleIntegers(item.ssrc, item.lastReceiverReport, item.delay) }
            case .unknown(let type, let typeSpecific, let contents):
                buffer.writeMultipleIntegers(type, typeSpecific, words)
                buffer.writeImmutableBuffer(contents)
            }
        }
    }

    /// The reporting source: the receiver for RRTR, the sender answering with DLRR.
    public var ssrc: UInt32
    public var blocks: [Block]

    /// An unknown block's contents must be whole words, and the packet must fit RTCP's length field.
    public init(ssrc: UInt32, blocks: [Block]) throws(RTPError) {
        for case .unknown(_, _, let contents) in blocks where contents.readableBytes % 4 != 0 {
            throw .invalidLength(field: "XR block", length: contents.readableBytes)
        }
        for case .delaySinceLastReceiverReport(let items) in blocks where 3 * items.count > Int(UInt16.max) {
            throw .valueOutOfRange(field: "XR DLRR sub-blocks", value: items.count)
        }
        self.ssrc = ssrc
        self.blocks = blocks
        guard encodedSize <= RTCPHeader.maxPacketSize else { throw .invalidLength(field: "XR", length: encodedSize) }
    }

    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        let packet = try RTCPPacketSlice(from: &buffer, packetType: Self.packetType)
        var body = packet.body
        ssrc = try body.readRequiredInteger()
        var blocks: [Block] = []
        while body.readableBytes > 0 { blocks.append(try Block(from: &body)) }
        self.blocks = blocks
    }

    /// The receiver reference time this report carries (its last RRTR block), if any.
    public var receiverReferenceTime: NTPTimestamp? {
        blocks.reversed().lazy.compactMap { if case .receiverReferenceTime(let time) = $0 { time } else { nil } }.first
    }

    public var encodedSize: Int { RTCPHeader.size + 4 + blocks.reduce(0) { $0 + $1.encodedSize } }

    public func write(to buffer: inout ByteBuffer) {
        RTCPHeader(count: 0, packetType: Self.packetType, packetSize: encodedSize).write(to: &buffer)
        buffer.writeInteger(ssrc)
        for block in blocks { block.write(to: &buffer) }
    }
}
