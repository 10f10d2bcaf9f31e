import NIOCore

/// A well-formed RTCP packet of a type this module does not interpret (APP, other feedback
/// formats): header and body kept verbatim, padding included, so it can be forwarded unchanged.
public struct RawRTCPPacket: Sendable, Equatable {
    public var header: RTCPHeader
    /// Everything after the 4-byte header, `header.packetSize - 4` bytes.
    public var body: ByteBuffer

    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        let packet = try RTCPPacketSlice(from: &buffer)
        header = packet.header
        body = packet.rawBody
    }

    public var encodedSize: Int { RTCPHeader.size + body.readableBytes }

    public func write(to buffer: inout ByteBuffer) {
        header.write(to: &buffer)
        buffer.writeImmutableBuffer(body)
    }
}
