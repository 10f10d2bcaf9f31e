import NIOCore

/// Packet status symbols, draft-holmer-rmcat-transport-wide-cc-extensions-01 §3.1.1.
public enum TransportWideCCPacketStatus: UInt8, Sendable, Equatable {
    case notReceived = 0
    case receivedSmallDelta = 1
    case receivedLargeDelta = 2
    /// Symbol 11 is "reserved" in the draft; like pion and libwebrtc, read as received without a delta.
    case receivedWithoutDelta = 3

    var hasDelta: Bool { self == .receivedSmallDelta || self == .receivedLargeDelta }
}

/// One 16-bit packet status chunk (§3.1.3, §3.1.4).
///
/// Run length chunk:
///
///      0                   1
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |T| S |       Run Length        |   T = 0
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// Status vector chunk: S = 0 holds 14 one-bit symbols (0 not received, 1 small delta),
/// S = 1 holds 7 two-bit symbols.
///
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |T|S|       symbol list         |   T = 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
public enum TransportWideCCChunk: Sendable, Equatable {
    case runLength(status: TransportWideCCPacketStatus, count: UInt16)
    /// 14 symbols, each `.notReceived` or `.receivedSmallDelta`.
    case oneBitVector([TransportWideCCPacketStatus])
    /// 7 symbols.
    case twoBitVector([TransportWideCCPacketStatus])

    static let vectorBit: UInt16 = 0x8000
    static let twoBitSymbolsBit: UInt16 = 0x4000
    static let runStatusShift: UInt16 = 13
    static let runLengthMask: UInt16 = 0x1FFF
    public static let maxRunLength: UInt16 = 0x1FFF
    public static let oneBitSymbolCount = 14
    public static let twoBitSymbolCount = 7

    /// Decodes any 16-bit word: every bit pattern is a valid chunk.
    public init(word: UInt16) {
        if word & Self.vectorBit == 0 {
            let status = TransportWideCCPacketStatus(rawValue: UInt8(word >> Self.runStatusShift & 0b11)) ?? .notReceived
            self = .runLength(status: status, count: word & Self.runLengthMask)
        } else if word & Self.twoBitSymbolsBit == 0 {
            self = .oneBitVector((0..<Self.oneBitSymbolCount).map { index in
                word >> (Self.oneBitSymbolCount - 1 - index) & 1 == 0 ? .notReceived : .receivedSmallDelta
            })
        } else {
            self = .twoBitVector((0..<Self.twoBitSymbolCount).map { index in
                let symbol = UInt8(word >> (2 * (Self.twoBitSymbolCount - 1 - index)) & 0b11)
                return TransportWideCCPacketStatus(rawValue: symbol) ?? .notReceived
            })
        }
    }

    /// The wire word (``TransportWideCCFeedback``'s init rejects vectors that are not well-formed).
    public var word: UInt16 {
        switch self {
        case .runLength(let status, let count):
            return UInt16(status.rawValue) << Self.runStatusShift | count & Self.runLengthMask
        case .oneBitVector(let symbols):
            var word = Self.vectorBit
            for (index, symbol) in symbols.prefix(Self.oneBitSymbolCount).enumerated() where symbol != .notReceived {
                word |= 1 << (Self.oneBitSymbolCount - 1 - index)
            }
            return word
        case .twoBitVector(let symbols):
            var word = Self.vectorBit | Self.twoBitSymbolsBit
            for (index, symbol) in symbols.prefix(Self.twoBitSymbolCount).enumerated() {
                word |= UInt16(symbol.rawValue) << (2 * (Self.twoBitSymbolCount - 1 - index))
            }
            return word
        }
    }

    /// Vectors hold exactly their capacity, and one-bit vectors only the two symbols one bit can say.
    var isWellFormed: Bool {
        switch self {
        case .runLength:
            true
        case .oneBitVector(let symbols):
            symbols.count == Self.oneBitSymbolCount
                && symbols.allSatisfy { $0 == .notReceived || $0 == .receivedSmallDelta }
        case .twoBitVector(let symbols):
            symbols.count == Self.twoBitSymbolCount
        }
    }

    /// How many packets the chunk describes.
    var packetCount: Int {
        switch self {
        case .runLength(_, let count): Int(count)
        case .oneBitVector: Self.oneBitSymbolCount
        case .twoBitVector: Self.twoBitSymbolCount
        }
    }

    func appendStatuses(to statuses: inout [TransportWideCCPacketStatus], limit: Int) {
        switch self {
        case .runLength(let status, let count):
            let take = min(Int(count), limit - statuses.count)
            statuses.append(contentsOf: repeatElement(status, count: max(0, take)))
        case .oneBitVector(let symbols), .twoBitVector(let symbols):
            statuses.append(contentsOf: symbols.prefix(max(0, limit - statuses.count)))
        }
    }
}

/// One receive delta in 250 µs ticks.
public enum TransportWideCCReceiveDelta: Sendable, Equatable {
    /// 0…63.75 ms, one byte.
    case small(UInt8)
    /// −8192…8191.75 ms, two bytes.
    case large(Int16)

    public var ticks: Int {
        switch self {
        case .small(let value): Int(value)
        case .large(let value): Int(value)
        }
    }

    var status: TransportWideCCPacketStatus {
        switch self {
        case .small: .receivedSmallDelta
        case .large: .receivedLargeDelta
        }
    }

    var encodedSize: Int {
        switch self {
        case .small: 1
        case .large: 2
        }
    }

    func write(to buffer: inout ByteBuffer) {
        switch self {
        case .small(let value): buffer.writeInteger(value)
        case .large(let value): buffer.writeInteger(value)
        }
    }
}
