import NIOCore

/// What kind of packet arrived on a port shared by STUN, DTLS, SRTP and SRTCP (WebRTC bundles them
/// all on one 5-tuple), by RFC 7983 §7's first-byte ranges and RFC 5761 §4's RTP/RTCP split.
///
///                      +----------------+
///                      |        [0..3] -+--> forward to STUN
///                      |                |
///                      |      [16..19] -+--> forward to ZRTP
///          packet -->  |                |
///                      |      [20..63] -+--> forward to DTLS
///                      |                |
///                      |      [64..79] -+--> forward to TURN Channel
///                      |                |
///                      |    [128..191] -+--> forward to RTP/RTCP
///                      +----------------+
public enum RTPDemultiplexedPacketKind: Sendable, Equatable {
    case stun
    case zrtp
    case dtls
    case turnChannel
    case rtp
    /// RTP-range first byte with a second byte of 192–223: an RTCP packet type (RFC 5761 §4).
    case rtcp
    case unknown

    static let stunRange: ClosedRange<UInt8> = 0...3
    static let zrtpRange: ClosedRange<UInt8> = 16...19
    static let dtlsRange: ClosedRange<UInt8> = 20...63
    static let turnChannelRange: ClosedRange<UInt8> = 64...79
    static let rtpRange: ClosedRange<UInt8> = 128...191

    /// Classifies a datagram by its first (and for RTP/RTCP, second) byte.
    public init(datagram: ByteBuffer) {
        guard let first = datagram.getInteger(at: datagram.readerIndex, as: UInt8.self) else {
            self = .unknown
            return
        }
        switch first {
        case Self.stunRange: self = .stun
        case Self.zrtpRange: self = .zrtp
        case Self.dtlsRange: self = .dtls
        case Self.turnChannelRange: self = .turnChannel
        case Self.rtpRange:
            let second = datagram.getInteger(at: datagram.readerIndex + 1, as: UInt8.self)
            if let second, RTCPPacketType.demultiplexRange.contains(second) {
                self = .rtcp
            } else {
                self = second == nil ? .unknown : .rtp
            }
        default: self = .unknown
        }
    }
}
