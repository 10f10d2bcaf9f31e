/// Answers a receiver's offer as a send-only peer: the WHEP server answering a browser's recvonly
/// offer (RFC 8829 §5.3, draft-ietf-wish-whep). Every accepted section shares one transport
/// (BUNDLE, RFC 9143) with our ICE-lite credentials and host candidates; we take `a=setup:passive`
/// when the offerer lets us (so the browser opens DTLS), `active` when it insists on passive.
public struct WebRTCAnswerer: Sendable {
    public var capabilities: SenderCapabilities
    public var sources: LocalSources
    public var transport: LocalTransportParameters

    public init(capabilities: SenderCapabilities, sources: LocalSources, transport: LocalTransportParameters) {
        self.capabilities = capabilities
        self.sources = sources
        self.transport = transport
    }

    /// The answer and what it settled. Sections we cannot serve (no common codec, data channels, a
    /// second video) are rejected; it throws when none is left or the offer lacks ICE/DTLS parameters.
    public func answer(_ offer: SessionDescription, sessionID: UInt64) throws(WebRTCError) -> (answer: SessionDescription, session: NegotiatedSession) {
        var video: NegotiatedVideo?
        var audio: NegotiatedAudio?
        var sections: [MediaDescription] = []
        let bundle = offer.bundleGroup ?? []
        for offered in offer.media {
            guard let mid = offered.mid else { throw .missingRemoteParameter("a=mid") }
            // Without BUNDLE each section would need its own transport: we serve only the first.
            let transportable = bundle.contains(mid) || (video == nil && audio == nil)
            if transportable, offered.media == "video", video == nil, !offered.isRejected,
               let chosen = MediaNegotiator.chooseVideo(in: offered, capabilities: capabilities, ssrcs: (sources.videoSSRC, sources.videoRTXSSRC)) {
                video = chosen
                sections.append(videoSection(chosen, offered: offered))
            } else if transportable, offered.media == "audio", audio == nil, !offered.isRejected,
                      let chosen = MediaNegotiator.chooseAudio(in: offered, capabilities: capabilities, ssrc: sources.audioSSRC) {
                audio = chosen
                sections.append(audioSection(chosen, offered: offered))
            } else {
                sections.append(.rejected(offered))
            }
        }
        let accepted = sections.filter { !$0.isRejected }.compactMap(\.mid)
        guard let tag = accepted.first, let tagSection = offer.media.first(where: { $0.mid == tag }) else {
            throw .noCommonCodec(mid: nil)
        }
        let remote = try MediaNegotiator.remoteTransport(of: offer, section: tagSection)
        let setup: DTLSSetupRole = remote.setup == .passive ? .active : .passive
        for index in sections.indices where !sections[index].isRejected {
            sections[index].addTransport(transport, setup: setup)
            sections[index].addCandidates(transport)
        }
        var attributes: [SDPAttribute] = transport.iceLite ? [.iceLite] : []
        attributes.append(.group(SDPGroup(semantics: "BUNDLE", identifiers: accepted)))
        let answer = SessionDescription(origin: SDPOrigin(sessionID: sessionID), attributes: attributes, media: sections)
        let session = NegotiatedSession(
            video: video, audio: audio, bundleMids: accepted,
            remoteCredentials: remote.credentials, remoteCandidates: remote.candidates, remoteFingerprint: remote.fingerprint,
            remoteICELite: offer.isICELite, dtlsRole: setup == .active ? .client : .server
        )
        return (answer, session)
    }

    private func videoSection(_ video: NegotiatedVideo, offered: MediaDescription) -> MediaDescription {
        var section = MediaDescription.local(media: "video", formats: [video.payloadType] + (video.rtxPayloadType.map { [$0] } ?? []), transport: transport)
        section.attributes = [.mid(video.mid), .direction(offered.direction.answerForSender)]
        section.attributes += offered.extensionMaps
            .filter { [video.videoOrientationExtensionID, video.transportWideCCExtensionID, video.captureTimeExtensionID,
                       video.playoutDelayExtensionID].contains($0.id) }
            .map { .extmap(ExtensionMap(id: $0.id, uri: $0.uri)) }
        section.addRTCPMux(offered)
        // An answer names the offered profile; the level is ours only when asymmetry is allowed.
        let answeredProfile = video.levelAsymmetryAllowed ? video.remoteProfileLevelID : video.remoteProfileLevelID.atMostLevel(of: video.sendProfileLevelID)
        var parameters = "packetization-mode=1;profile-level-id=\(answeredProfile)"
        if video.levelAsymmetryAllowed { parameters = "level-asymmetry-allowed=1;" + parameters }
        section.addCodec(RTPMap(payloadType: video.payloadType, encodingName: MediaNegotiator.h264, clockRate: MediaNegotiator.videoClockRate),
                         feedback: video.feedback, formatParameters: parameters)
        if video.receiverReferenceTime {
            section.attributes.append(.rtcpFeedback(RTCPFeedback(payloadType: video.payloadType, type: MediaNegotiator.receiverReferenceTimeFeedback)))
        }
        if let rtx = video.rtxPayloadType {
            section.addRTX(payloadType: rtx, for: video.payloadType)
        }
        section.addSources([video.ssrc] + (video.rtxSSRC.map { [$0] } ?? []), track: "video", sources: sources)
        return section
    }

    private func audioSection(_ audio: NegotiatedAudio, offered: MediaDescription) -> MediaDescription {
        var section = MediaDescription.local(media: "audio", formats: [audio.payloadType], transport: transport)
        section.attributes = [.mid(audio.mid), .direction(offered.direction.answerForSender)]
        section.attributes += offered.extensionMaps.filter { $0.id == audio.transportWideCCExtensionID }.map { .extmap(ExtensionMap(id: $0.id, uri: $0.uri)) }
        section.addRTCPMux(offered)
        section.addCodec(RTPMap(payloadType: audio.payloadType, encodingName: MediaNegotiator.opus, clockRate: MediaNegotiator.opusClockRate, channels: 2),
                         feedback: audio.feedback, formatParameters: audio.formatParameters)
        section.addSources([audio.ssrc], track: "audio", sources: sources)
        return section
    }
}

extension MediaDescription {
    /// rtcp-mux and rtcp-rsize when the offer has them (RFC 8829 §5.3.1).
    mutating func addRTCPMux(_ offered: MediaDescription) {
        attributes += [SDPAttribute.rtcpMux, .rtcpReducedSize].filter(offered.attributes.contains)
    }
}
