/// The RTCP feedback livepush's sender acts on: NACK → retransmit (RFC 4585), PLI and FIR →
/// keyframe (RFC 4585, RFC 5104), REMB and transport-cc → bitrate. Offer/answer keeps the ones
/// both sides list.
public enum RTCPFeedbackKind: Sendable, Hashable, CaseIterable {
    case nack, pictureLossIndication, fullIntraRequest, receiverEstimatedMaximumBitrate, transportWideCC

    /// The `a=rtcp-fb` type and parameter.
    var sdp: (type: String, parameter: String?) {
        switch self {
        case .nack: ("nack", nil)
        case .pictureLossIndication: ("nack", "pli")
        case .fullIntraRequest: ("ccm", "fir")
        case .receiverEstimatedMaximumBitrate: ("goog-remb", nil)
        case .transportWideCC: ("transport-cc", nil)
        }
    }

    init?(_ feedback: RTCPFeedback) {
        guard let kind = Self.allCases.first(where: { $0.sdp.type == feedback.type && $0.sdp.parameter == feedback.parameter }) else {
            return nil
        }
        self = kind
    }

    func attribute(payloadType: UInt8) -> SDPAttribute {
        .rtcpFeedback(RTCPFeedback(payloadType: payloadType, type: sdp.type, parameter: sdp.parameter))
    }
}
