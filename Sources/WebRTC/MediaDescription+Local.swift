/// Building blocks of our own media sections, shared by the answer and the offer.
extension MediaDescription {
    /// m= port and c= address: our first candidate (RFC 8839 §4.2.1.1's default candidate), or the
    /// JSEP placeholders 9 and 0.0.0.0 when there is none.
    static func local(media: String, formats: [UInt8], transport: LocalTransportParameters) -> MediaDescription {
        let first = transport.candidates.first
        let addressType = first.flatMap { IPAddress($0.address) }.map { $0.isIPv4 ? "IP4" : "IP6" } ?? "IP4"
        return MediaDescription(media: media, port: first?.port ?? 9, formats: formats.map(String.init),
                                connection: SDPConnection(addressType: addressType, address: first?.address ?? "0.0.0.0"))
    }

    /// ICE and DTLS attributes of the bundled transport (RFC 8829 §5.2.1, §5.3.1).
    mutating func addTransport(_ transport: LocalTransportParameters, setup: DTLSSetupRole) {
        attributes += [
            .iceUfrag(transport.credentials.ufrag), .icePwd(transport.credentials.pwd),
            .fingerprint(transport.fingerprint), .setup(setup),
        ]
    }

    /// Host candidates, then end-of-candidates: we gather nothing later (RFC 8838 §8.2).
    mutating func addCandidates(_ transport: LocalTransportParameters) {
        attributes += transport.candidates.map(SDPAttribute.candidate) + [.endOfCandidates]
    }

    /// rtpmap, rtcp-fb and fmtp of one payload type.
    mutating func addCodec(_ map: RTPMap, feedback: Set<RTCPFeedbackKind>, formatParameters: String?) {
        attributes.append(.rtpmap(map))
        attributes += RTCPFeedbackKind.allCases.filter(feedback.contains).map { $0.attribute(payloadType: map.payloadType) }
        if let formatParameters {
            attributes.append(.fmtp(FormatParameters(payloadType: map.payloadType, value: formatParameters)))
        }
    }

    /// RTX for `payloadType` (RFC 4588 §8.1).
    mutating func addRTX(payloadType: UInt8, for primary: UInt8) {
        attributes += [
            .rtpmap(RTPMap(payloadType: payloadType, encodingName: MediaNegotiator.rtx, clockRate: MediaNegotiator.videoClockRate)),
            .fmtp(FormatParameters(payloadType: payloadType, value: "apt=\(primary)")),
        ]
    }

    /// `a=msid`, the FID group pairing media and RTX, and each SSRC's cname and msid.
    mutating func addSources(_ ssrcs: [UInt32], track: String, sources: LocalSources) {
        attributes.append(.msid(stream: sources.streamID, track: track))
        if ssrcs.count == 2 {
            attributes.append(.ssrcGroup(SSRCGroup(semantics: "FID", ssrcs: ssrcs)))
        }
        for ssrc in ssrcs {
            attributes += [
                .ssrc(SSRCAttribute(ssrc: ssrc, name: "cname", value: sources.cname)),
                .ssrc(SSRCAttribute(ssrc: ssrc, name: "msid", value: "\(sources.streamID) \(track)")),
            ]
        }
    }

    /// A rejected section (RFC 3264 §6): port 0, the mid kept so the offerer can match it.
    static func rejected(_ offered: MediaDescription) -> MediaDescription {
        MediaDescription(media: offered.media, port: 0, proto: offered.proto, formats: Array(offered.formats.prefix(1)),
                         attributes: offered.mid.map { [.mid($0)] } ?? [])
    }
}
