import NIOCore

/// The playout delay header extension (`http://www.webrtc.org/experiments/rtp-hdrext/playout-delay`,
/// webrtc.org's "Playout Delay" spec): the sender tells the receiver the least and the most time to
/// hold a frame between capture-to-receive and render, so a viewer that wants low latency does not
/// build up a jitter buffer of its own choosing (libwebrtc's target is clamped to these bounds).
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |  ID   | len=2 |       MIN delay       |       MAX delay       |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// Both are 12-bit counts of 10 ms (0–40.95 s). libwebrtc reads it from a frame's first packet and
/// keeps the last value it saw until another arrives.
public struct PlayoutDelay: Sendable, Equatable {
    public static let uri = "http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"
    public static let size = 3
    /// The wire unit.
    public static let granularityMillis = 10
    /// The largest value a 12-bit field carries.
    public static let maximumMillis = 4095 * granularityMillis

    public private(set) var minimumMillis: Int
    public private(set) var maximumMillis: Int

    /// What a viewer asking for low latency gets: no minimum, at most 100 ms (three frames at 30 fps).
    /// libwebrtc renders a stream with a zero minimum and a maximum up to 500 ms as soon as each
    /// frame is decoded (its "low-latency rendering"), instead of at a smoothed render time.
    public static let lowLatency = PlayoutDelay(checkedMinimumMillis: 0, maximumMillis: 100)

    private init(checkedMinimumMillis: Int, maximumMillis: Int) {
        minimumMillis = checkedMinimumMillis
        self.maximumMillis = maximumMillis
    }

    /// Both in 10 ms steps (a value between steps is rounded down), 0 ≤ minimum ≤ maximum ≤ 40.95 s.
    public init(minimumMillis: Int, maximumMillis: Int) throws(RTPError) {
        guard (0...Self.maximumMillis).contains(minimumMillis) else { throw .valueOutOfRange(field: "playout delay minimum", value: minimumMillis) }
        guard (minimumMillis...Self.maximumMillis).contains(maximumMillis) else {
            throw .valueOutOfRange(field: "playout delay maximum", value: maximumMillis)
        }
        self.minimumMillis = minimumMillis / Self.granularityMillis * Self.granularityMillis
        self.maximumMillis = maximumMillis / Self.granularityMillis * Self.granularityMillis
    }

    /// Reads an element's data, which is 3 bytes and nothing else. A minimum above the maximum is
    /// taken as written (the receiver's business, as libwebrtc's parser does).
    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        guard buffer.readableBytes == Self.size else { throw .invalidLength(field: "playout-delay", length: buffer.readableBytes) }
        let high: UInt16 = try buffer.readRequiredInteger()
        let low: UInt8 = try buffer.readRequiredInteger()
        let both = UInt32(high) << 8 | UInt32(low)
        minimumMillis = Int(both >> 12) * Self.granularityMillis
        maximumMillis = Int(both & 0xFFF) * Self.granularityMillis
    }

    /// This element's value in `headerExtension`, when it has one with `id` that parses.
    public init?(in headerExtension: RTPHeaderExtension, id: UInt8) {
        guard var data = headerExtension.element(id: id), let value = try? Self(from: &data) else { return nil }
        self = value
    }

    public var encodedSize: Int { Self.size }

    public func write(to buffer: inout ByteBuffer) {
        let both = UInt32(minimumMillis / Self.granularityMillis) << 12 | UInt32(maximumMillis / Self.granularityMillis)
        buffer.writeInteger(UInt16(truncatingIfNeeded: both >> 8))
        buffer.writeInteger(UInt8(truncatingIfNeeded: both))
    }

    /// This value as one element under the negotiated `id`, to share a block with others.
    public func element(id: UInt8) -> RTPHeaderExtensionElement {
        var data = ByteBuffer()
        write(to: &data)
        return RTPHeaderExtensionElement(id: id, data: data)
    }

    /// Appends this value as one one-byte-form element under `id` to a block being built in `buffer`.
    public func writeElement(id: UInt8, to buffer: inout ByteBuffer) throws(RTPError) {
        try RTPHeaderExtension.writeOneByteElement(id: id, length: encodedSize, to: &buffer) { write(to: &$0) }
    }
}
