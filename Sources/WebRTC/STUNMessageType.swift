/// The 14-bit STUN message type (RFC 8489 §5): a method and a class, interleaved as
///
///      0                 1
///      2  3  4 5 6 7 8 9 0 1 2 3 4 5
///     +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
///     |M |M |M|M|M|C|M|M|M|C|M|M|M|M|
///     |11|10|9|8|7|1|6|5|4|0|3|2|1|0|
///     +--+--+-+-+-+-+-+-+-+-+-+-+-+-+
public struct STUNMessageType: Sendable, Hashable {
    public enum Class: UInt16, Sendable, Hashable {
        case request = 0b00, indication = 0b01, successResponse = 0b10, errorResponse = 0b11
    }

    /// The only method ICE uses (RFC 8489 §18.2).
    public static let bindingMethod: UInt16 = 0x001

    public static let bindingRequest = STUNMessageType(method: bindingMethod, class: .request)
    public static let bindingSuccess = STUNMessageType(method: bindingMethod, class: .successResponse)
    public static let bindingError = STUNMessageType(method: bindingMethod, class: .errorResponse)
    public static let bindingIndication = STUNMessageType(method: bindingMethod, class: .indication)

    /// 12 bits.
    public var method: UInt16
    public var `class`: Class

    public init(method: UInt16, class: Class) {
        self.method = method & 0x0FFF
        self.class = `class`
    }

    private static let methodLowMask: UInt16 = 0x000F
    private static let methodMiddleMask: UInt16 = 0x0070
    private static let methodHighMask: UInt16 = 0x0F80
    private static let classLowBit: UInt16 = 0x0010
    private static let classHighBit: UInt16 = 0x0100

    /// From the 14 bits after the two leading zero bits.
    init(rawValue: UInt16) {
        method = rawValue & Self.methodLowMask | (rawValue >> 1) & Self.methodMiddleMask | (rawValue >> 2) & Self.methodHighMask
        let classBits = (rawValue & Self.classLowBit) >> 4 | (rawValue & Self.classHighBit) >> 7
        self.class = Class(rawValue: classBits) ?? .request
    }

    var rawValue: UInt16 {
        let classBits = self.class.rawValue
        return method & Self.methodLowMask | (method << 1) & (Self.methodMiddleMask << 1) | (method << 2) & (Self.methodHighMask << 2)
            | (classBits & 0b01) << 4 | (classBits & 0b10) << 7
    }
}
