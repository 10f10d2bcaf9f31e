import DTLS

/// The WHIP client's side of offer/answer (RFC 9725 §4.2): a sendonly offer listing every codec we
/// can send, then the server's answer turned into a ``NegotiatedSession``. We offer
/// `a=setup:actpass` and full ICE; the server (usually ICE-lite, `setup:passive`) decides.
public struct WebRTCOfferer: Sendable {
    public static let videoMid = "0"
    public static let audioMid = "1"
    /// Dynamic payload types from 96 (RFC 3551 §3): H.264 and its RTX alternate, Opus after them.
    static let firstVideoPayloadType: UInt8 = 96
    static let opusPayloadType: UInt8 = 111
    static let transportWideCCExtensionID: UInt8 = 1
    static let videoOrientationExtensionID: UInt8 = 2
    static let captureTimeExtensionID: UInt8 = 3
    static let opusParameters = "minptime=10;useinbandfec=1"

    public var capabilities: SenderCapabilities
    public var sources: LocalSources

    public init(capabilities: SenderCapabilities, sources: LocalSources) {
        self.capabilities = capabilities
        self.sources = sources
    }

    /// The offer: one sendonly video section, and an audio one when we have Opus, bundled.
    public func offer(transport: LocalTransportParameters, sessionID: UInt64, sessionVersion: UInt64 = 2) -> SessionDescription {
        var sections = [videoSection(transport)]
        if capabilities.opus {
            sections.append(audioSection(transport))
        }
        for index in sections.indices {
            sections[index].addTransport(transport, setup: .actpass)
            sections[index].addCandidates(transport)
        }
        return SessionDescription(
            origin: SDPOrigin(sessionID: sessionID, sessionVersion: sessionVersion),
            attributes: [.group(SDPGroup(semantics: "BUNDLE", identifiers: sections.compactMap(\.mid)))],
            media: sections
        )
    }

    /// Reads the server's answer to `offer`: per mid, the codec it kept (it must be one we offered),
    /// its ICE credentials and candidates, fingerprint and DTLS role.
    public func process(answer: SessionDescription, to offer: SessionDescription) throws(WebRTCError) -> NegotiatedSession {
        var video: NegotiatedVideo?
        var audio: NegotiatedAudio?
        var accepted: [MediaDescription] = []
        for offered in offer.media {
            guard let mid = offered.mid, let answered = answer.media.first(where: { $0.mid == mid }) else {
                throw .answerMismatch("no section for mid \(offered.mid ?? "?")")
            }
            guard !answered.isRejected else { continue }
            let offeredTypes = Set(offered.rtpMaps.map(\.payloadType))
            switch offered.media {
            case "video":
                video = MediaNegotiator.chooseVideo(in: answered, capabilities: capabilities, ssrcs: (sources.videoSSRC, sources.videoRTXSSRC),
                                                    allowedPayloadTypes: offeredTypes)
                guard video != nil else { throw .noCommonCodec(mid: mid) }
            case "audio":
                audio = MediaNegotiator.chooseAudio(in: answered, capabilities: capabilities, ssrc: sources.audioSSRC, allowedPayloadTypes: offeredTypes)
                guard audio != nil else { throw .noCommonCodec(mid: mid) }
            default:
                continue
            }
            accepted.append(answered)
        }
        guard let tagSection = accepted.first else { throw .noCommonCodec(mid: nil) }
        let remote = try MediaNegotiator.remoteTransport(of: answer, section: tagSection)
        let role: DTLSRole
        switch remote.setup {
        case .active: role = .server
        case .passive: role = .client
        case .actpass, .holdconn: throw .answerMismatch("a=setup:\(remote.setup.rawValue) in an answer")
        }
        return NegotiatedSession(
            video: video, audio: audio, bundleMids: answer.bundleGroup ?? accepted.compactMap(\.mid),
            remoteCredentials: remote.credentials, remoteCandidates: remote.candidates, remoteFingerprint: remote.fingerprint,
            remoteICELite: answer.isICELite, dtlsRole: role
        )
    }

    private func videoSection(_ transport: LocalTransportParameters) -> MediaDescription {
        let count = UInt8(clamping: capabilities.h264.count)
        let step: UInt8 = capabilities.rtx ? 2 : 1
        let payloadTypes = (0..<count).map { Self.firstVideoPayloadType + $0 * step }
        var formats: [UInt8] = []
        for payloadType in payloadTypes {
            formats += capabilities.rtx ? [payloadType, payloadType + 1] : [payloadType]
        }
        var section = MediaDescription.local(media: "video", formats: formats, transport: transport)
        section.attributes = [.mid(Self.videoMid), .direction(.sendonly)]
        if capabilities.transportWideCC {
            section.attributes.append(.extmap(ExtensionMap(id: Self.transportWideCCExtensionID, uri: ExtensionMap.transportWideCC)))
        }
        if capabilities.videoOrientation {
            section.attributes.append(.extmap(ExtensionMap(id: Self.videoOrientationExtensionID, uri: ExtensionMap.videoOrientation)))
        }
        if capabilities.absoluteCaptureTime {
            section.attributes.append(.extmap(ExtensionMap(id: Self.captureTimeExtensionID, uri: ExtensionMap.absoluteCaptureTime)))
        }
        section.attributes += [.rtcpMux, .rtcpReducedSize]
        for (payloadType, profile) in zip(payloadTypes, capabilities.h264) {
            section.addCodec(RTPMap(payloadType: payloadType, encodingName: MediaNegotiator.h264, clockRate: MediaNegotiator.videoClockRate),
                             feedback: capabilities.feedback,
                             formatParameters: "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=\(profile)")
            if capabilities.rtx {
                section.addRTX(payloadType: payloadType + 1, for: payloadType)
            }
        }
        section.addSources(capabilities.rtx ? [sources.videoSSRC, sources.videoRTXSSRC] : [sources.videoSSRC], track: "video", sources: sources)
        return section
    }

    private func audioSection(_ transport: LocalTransportParameters) -> MediaDescription {
        var section = MediaDescription.local(media: "audio", formats: [Self.opusPayloadType], transport: transport)
        section.attributes = [.mid(Self.audioMid), .direction(.sendonly)]
        if capabilities.transportWideCC {
            section.attributes.append(.extmap(ExtensionMap(id: Self.transportWideCCExtensionID, uri: ExtensionMap.transportWideCC)))
        }
        section.attributes += [.rtcpMux, .rtcpReducedSize]
        section.addCodec(RTPMap(payloadType: Self.opusPayloadType, encodingName: MediaNegotiator.opus, clockRate: MediaNegotiator.opusClockRate, channels: 2),
                         feedback: capabilities.feedback.intersection([.transportWideCC]), formatParameters: Self.opusParameters)
        section.addSources([sources.audioSSRC], track: "audio", sources: sources)
        return section
    }
}
