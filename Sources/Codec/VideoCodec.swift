/// The compression format an encoder produces, which decides how its bitstream is framed.
public enum VideoCodec: String, Sendable, CaseIterable, CustomStringConvertible {
    case h264
    case hevc
    case av1

    public var description: String { rawValue }

    /// Whether the bitstream is made of Annex-B NAL units (AV1 is a sequence of OBUs instead).
    public var usesNALUnits: Bool { self != .av1 }

    /// The NAL unit type from the first header byte(s) (H.264 §7.3.1: 5 bits; H.265 §7.3.1.2: 6 bits).
    public func nalUnitType(firstByte: UInt8) -> UInt8 {
        switch self {
        case .h264: return firstByte & 0x1F
        case .hevc: return (firstByte >> 1) & 0x3F
        case .av1: return 0
        }
    }

    /// SPS/PPS (H.264 types 7, 8) or VPS/SPS/PPS (H.265 types 32, 33, 34).
    public func isParameterSet(nalUnitType type: UInt8) -> Bool {
        switch self {
        case .h264: return type == H264NALType.sps || type == H264NALType.pps
        case .hevc: return (HEVCNALType.vps...HEVCNALType.pps).contains(type)
        case .av1: return false
        }
    }

    /// A coded slice (VCL NAL unit): H.264 types 1–5, H.265 types 0–31. What comes before the
    /// first one (delimiter, parameter sets, SEI) belongs to the access unit's header.
    public func isVCL(nalUnitType type: UInt8) -> Bool {
        switch self {
        case .h264: return (H264NALType.nonIDRSlice...H264NALType.idrSlice).contains(type)
        case .hevc: return type < HEVCNALType.vps
        case .av1: return false
        }
    }

    /// An instantaneous-decoding-refresh picture: H.264 type 5, H.265 IDR_W_RADL/IDR_N_LP (19, 20).
    public func isIDR(nalUnitType type: UInt8) -> Bool {
        switch self {
        case .h264: return type == H264NALType.idrSlice
        case .hevc: return type == HEVCNALType.idrWithRADL || type == HEVCNALType.idrNoLeadingPictures
        case .av1: return false
        }
    }
}

/// H.264 NAL unit types used here (Table 7-1).
public enum H264NALType {
    public static let nonIDRSlice: UInt8 = 1
    public static let idrSlice: UInt8 = 5
    public static let sei: UInt8 = 6
    public static let sps: UInt8 = 7
    public static let pps: UInt8 = 8
    public static let accessUnitDelimiter: UInt8 = 9
}

/// H.265 NAL unit types used here (Table 7-1).
public enum HEVCNALType {
    public static let idrWithRADL: UInt8 = 19
    public static let idrNoLeadingPictures: UInt8 = 20
    public static let vps: UInt8 = 32
    public static let sps: UInt8 = 33
    public static let pps: UInt8 = 34
    public static let prefixSEI: UInt8 = 39
}
