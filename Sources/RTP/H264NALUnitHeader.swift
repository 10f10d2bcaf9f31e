/// The one-byte H.264 NAL unit header (ITU-T H.264 §7.3.1, RFC 6184 §1.3), which RTP payloads
/// reuse for STAP-A and FU-A indicators.
///
///     +---------------+
///     |0|1|2|3|4|5|6|7|
///     +-+-+-+-+-+-+-+-+
///     |F|NRI|  Type   |
///     +---------------+
public struct H264NALUnitHeader: Sendable, Equatable {
    static let forbiddenBit: UInt8 = 0x80
    static let nriMask: UInt8 = 0x60
    static let typeMask: UInt8 = 0x1F

    /// Types that matter to packetization; RFC 6184 §5.2 Table 1 and H.264 Table 7-1.
    public static let typeIDR: UInt8 = 5
    public static let typeSPS: UInt8 = 7
    public static let typePPS: UInt8 = 8
    public static let typeSTAPA: UInt8 = 24
    public static let typeSTAPB: UInt8 = 25
    public static let typeMTAP16: UInt8 = 26
    public static let typeMTAP24: UInt8 = 27
    public static let typeFUA: UInt8 = 28
    public static let typeFUB: UInt8 = 29

    public var byte: UInt8

    public init(byte: UInt8) {
        self.byte = byte
    }

    public var forbiddenZero: Bool { byte & Self.forbiddenBit != 0 }
    /// nal_ref_idc, kept in place (bits 5–6) so it can be OR-ed into indicators.
    var nriBits: UInt8 { byte & Self.nriMask }
    public var nri: UInt8 { nriBits >> 5 }
    public var type: UInt8 { byte & Self.typeMask }
}
