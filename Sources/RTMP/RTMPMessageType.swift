/// The message type id of an RTMP message header (RTMP spec §5.4, §7.1).
/// A struct rather than an enum so ids this module does not know still round-trip.
public struct RTMPMessageType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// §5.4.1
    public static let setChunkSize = Self(rawValue: 1)
    /// §5.4.2
    public static let abort = Self(rawValue: 2)
    /// §5.4.3
    public static let acknowledgement = Self(rawValue: 3)
    /// §6.2 (user control messages)
    public static let userControl = Self(rawValue: 4)
    /// §5.4.4
    public static let windowAcknowledgementSize = Self(rawValue: 5)
    /// §5.4.5
    public static let setPeerBandwidth = Self(rawValue: 6)
    /// §7.1.5: an FLV audio tag body.
    public static let audio = Self(rawValue: 8)
    /// §7.1.5: an FLV video tag body.
    public static let video = Self(rawValue: 9)
    /// §7.1.2: data message, AMF3 encoding.
    public static let dataAMF3 = Self(rawValue: 15)
    /// §7.1.1: command message, AMF3 encoding (one format byte, then AMF0 values in practice).
    public static let commandAMF3 = Self(rawValue: 17)
    /// §7.1.2: data message (`@setDataFrame`), AMF0 encoding.
    public static let dataAMF0 = Self(rawValue: 18)
    /// §7.1.1: command message, AMF0 encoding.
    public static let commandAMF0 = Self(rawValue: 20)
    /// §7.1.6
    public static let aggregate = Self(rawValue: 22)

    public var description: String { "\(rawValue)" }
}
