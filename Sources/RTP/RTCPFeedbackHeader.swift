import NIOCore

/// The common packet format of RTCP feedback messages, RFC 4585 §6.1: the RTCP header with FMT in
/// the count field, then the two SSRCs, then the feedback control information (FCI).
///
///      0                   1                   2                   3
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |V=2|P|   FMT   |       PT      |          length               |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                  SSRC of packet sender                        |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |                  SSRC of media source                         |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     :            Feedback Control Information (FCI)                 :
struct RTCPFeedbackHeader {
    /// RTCP header + two SSRCs.
    static let size = 12

    var senderSSRC: UInt32
    var mediaSSRC: UInt32

    /// Reads one feedback packet of the given type and format; `fci` is the rest of its body.
    static func read(
        from buffer: inout ByteBuffer, packetType: UInt8, format: UInt8
    ) throws(RTPError) -> (header: RTCPFeedbackHeader, fci: ByteBuffer, packet: RTCPPacketSlice) {
        let packet = try RTCPPacketSlice(from: &buffer, packetType: packetType, format: format)
        var body = packet.body
        let header = RTCPFeedbackHeader(senderSSRC: try body.readRequiredInteger(), mediaSSRC: try body.readRequiredInteger())
        return (header, body, packet)
    }

    func write(to buffer: inout ByteBuffer, packetType: UInt8, format: UInt8, packetSize: Int) {
        RTCPHeader(count: format, packetType: packetType, packetSize: packetSize).write(to: &buffer)
        buffer.writeInteger(senderSSRC)
        buffer.writeInteger(mediaSSRC)
    }
}
