import NIOCore

/// A compound RTCP packet, RFC 3550 §6.1: the RTCP packets of one datagram, back to back.
///
/// RFC 3550 requires the first to be SR or RR (Appendix A.2's validity check, which also demands
/// that only the last packet carry padding). RFC 5506 relaxes this for reduced-size RTCP, negotiated
/// with `a=rtcp-rsize` (WebRTC always does): a datagram may then hold just a feedback message such
/// as a PLI or NACK. `allowReducedSize` selects the rule.
public struct RTCPCompoundPacket: Sendable, Equatable {
    public var packets: [RTCPPacket]

    public init(packets: [RTCPPacket]) {
        self.packets = packets
    }

    /// Reads every packet in `buffer` (one datagram).
    public init(from buffer: inout ByteBuffer, allowReducedSize: Bool = true) throws(RTPError) {
        var copy = buffer
        var packets: [RTCPPacket] = []
        repeat {
            var peek = copy
            let header = try RTCPHeader(from: &peek)
            if packets.isEmpty, !allowReducedSize,
               header.packetType != RTCPPacketType.senderReport, header.packetType != RTCPPacketType.receiverReport {
                throw .compoundMustStartWithReport(packetType: header.packetType)
            }
            let packet = try RTCPPacket(from: &copy)
            if header.padding, copy.readableBytes > 0 { throw .paddingBeforeLastPacket }
            packets.append(packet)
        } while copy.readableBytes > 0
        self.packets = packets
        buffer = copy
    }

    /// Whether this is a reduced-size packet (RFC 5506): it does not start with a report.
    public var isReducedSize: Bool {
        switch packets.first {
        case .senderReport, .receiverReport: false
        default: true
        }
    }

    public var encodedSize: Int { packets.reduce(0) { $0 + $1.encodedSize } }

    public func write(to buffer: inout ByteBuffer) {
        for packet in packets { packet.write(to: &buffer) }
    }
}
