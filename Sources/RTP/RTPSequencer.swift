/// Hands out RTP sequence numbers (RFC 3550 §5.1), wrapping at 2¹⁶.
///
/// A value type the packetizer takes as a parameter, so tests start it where they like (pion/rtp's
/// `NewFixedSequencer`), e.g. just below the wrap.
public struct RTPSequencer: Sendable, Equatable {
    /// Random starts stay below 2¹⁵ so an SRTP receiver's rollover-counter guess (RFC 3711 §3.3.1)
    /// cannot be confused by an early wrap; WebRTC draws from the same range.
    public static let maxRandomStart: UInt16 = 0x7FFF

    /// The number the next call to ``next()`` returns.
    public private(set) var nextSequenceNumber: UInt16

    public init(start: UInt16) {
        nextSequenceNumber = start
    }

    /// A random start (RFC 3550 §5.1: "the initial value of the sequence number SHOULD be random").
    public init(using generator: inout some RandomNumberGenerator) {
        nextSequenceNumber = UInt16.random(in: 0...Self.maxRandomStart, using: &generator)
    }

    public mutating func next() -> UInt16 {
        defer { nextSequenceNumber &+= 1 }
        return nextSequenceNumber
    }
}
