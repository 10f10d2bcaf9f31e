import NIOCore

/// Any single RTCP packet, dispatched on packet type and FMT.
public enum RTCPPacket: Sendable, Equatable {
    case senderReport(SenderReport)
    case receiverReport(ReceiverReport)
    case sourceDescription(SourceDescription)
    case goodbye(Goodbye)
    case genericNACK(GenericNACK)
    case transportWideCC(TransportWideCCFeedback)
    case pictureLossIndication(PictureLossIndication)
    case fullIntraRequest(FullIntraRequest)
    case receiverEstimatedMaximumBitrate(ReceiverEstimatedMaximumBitrate)
    /// RFC 3611 extended report (RRTR in, DLRR out).
    case extendedReport(ExtendedReport)
    /// Well-formed, but a type or format not interpreted here.
    case unknown(RawRTCPPacket)

    /// Reads one packet; malformed known types throw, unknown ones become ``unknown(_:)``.
    public init(from buffer: inout ByteBuffer) throws(RTPError) {
        var peek = buffer
        let slice = try RTCPPacketSlice(from: &peek)
        switch (slice.header.packetType, slice.header.count) {
        case (RTCPPacketType.senderReport, _):
            self = .senderReport(try SenderReport(from: &buffer))
        case (RTCPPacketType.receiverReport, _):
            self = .receiverReport(try ReceiverReport(from: &buffer))
        case (RTCPPacketType.sourceDescription, _):
            self = .sourceDescription(try SourceDescription(from: &buffer))
        case (RTCPPacketType.goodbye, _):
            self = .goodbye(try Goodbye(from: &buffer))
        case (RTCPPacketType.transportFeedback, RTCPFeedbackFormat.genericNACK):
            self = .genericNACK(try GenericNACK(from: &buffer))
        case (RTCPPacketType.transportFeedback, RTCPFeedbackFormat.transportWideCC):
            self = .transportWideCC(try TransportWideCCFeedback(from: &buffer))
        case (RTCPPacketType.payloadSpecificFeedback, RTCPFeedbackFormat.pictureLossIndication):
            self = .pictureLossIndication(try PictureLossIndication(from: &buffer))
        case (RTCPPacketType.payloadSpecificFeedback, RTCPFeedbackFormat.fullIntraRequest):
            self = .fullIntraRequest(try FullIntraRequest(from: &buffer))
        case (RTCPPacketType.payloadSpecificFeedback, RTCPFeedbackFormat.applicationLayer)
            where ReceiverEstimatedMaximumBitrate.isREMB(slice):
            self = .receiverEstimatedMaximumBitrate(try ReceiverEstimatedMaximumBitrate(from: &buffer))
        case (ExtendedReport.packetType, _):
            self = .extendedReport(try ExtendedReport(from: &buffer))
        default:
            self = .unknown(try RawRTCPPacket(from: &buffer))
        }
    }

    public var encodedSize: Int {
        switch self {
        case .senderReport(let packet): packet.encodedSize
        case .receiverReport(let packet): packet.encodedSize
        case .sourceDescription(let packet): packet.encodedSize
        case .goodbye(let packet): packet.encodedSize
        case .genericNACK(let packet): packet.encodedSize
        case .transportWideCC(let packet): packet.encodedSize
        case .pictureLossIndication(let packet): packet.encodedSize
        case .fullIntraRequest(let packet): packet.encodedSize
        case .receiverEstimatedMaximumBitrate(let packet): packet.encodedSize
        case .extendedReport(let packet): packet.encodedSize
        case .unknown(let packet): packet.encodedSize
        }
    }

    public func write(to buffer: inout ByteBuffer) {
        switch self {
        case .senderReport(let packet): packet.write(to: &buffer)
        case .receiverReport(let packet): packet.write(to: &buffer)
        case .sourceDescription(let packet): packet.write(to: &buffer)
        case .goodbye(let packet): packet.write(to: &buffer)
        case .genericNACK(let packet): packet.write(to: &buffer)
        case .transportWideCC(let packet): packet.write(to: &buffer)
        case .pictureLossIndication(let packet): packet.write(to: &buffer)
        case .fullIntraRequest(let packet): packet.write(to: &buffer)
        case .receiverEstimatedMaximumBitrate(let packet): packet.write(to: &buffer)
        case .extendedReport(let packet): packet.write(to: &buffer)
        case .unknown(let packet): packet.write(to: &buffer)
        }
    }
}
