import NIOCore

/// Opus payload format, RFC 7587 §4.2: the payload is exactly one Opus packet, never fragmented.
public struct OpusPayloader: RTPPayloader {
    public typealias Frame = ByteBuffer
    public static let clock = RTPClock.opus48kHz
    public static let defaultMaxPayloadSize = 1200

    public let maxPayloadSize: Int

    public init(maxPayloadSize: Int = defaultMaxPayloadSize) {
        self.maxPayloadSize = maxPayloadSize
    }

    /// One payload: the Opus packet itself (no copy). Empty packets (DTX gaps are simply not sent)
    /// and packets over the limit throw, since Opus has no fragmentation.
    public func payloads(for frame: ByteBuffer) throws(RTPError) -> [ByteBuffer] {
        guard frame.readableBytes > 0 else { throw .emptyPayload }
        guard frame.readableBytes <= maxPayloadSize else {
            throw .payloadTooLarge(size: frame.readableBytes, maximum: maxPayloadSize)
        }
        return [frame]
    }
}
