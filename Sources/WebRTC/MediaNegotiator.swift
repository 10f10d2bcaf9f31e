import DTLS

/// The codec and transport choices both offer/answer directions share: the WHEP answerer applies
/// them to the browser's offer, the WHIP offerer to the server's answer. Either way the remote
/// section lists what the peer receives, in its order of preference (RFC 3264 §6.1, §7).
enum MediaNegotiator {
    static let h264 = "H264"
    static let rtx = "rtx"
    static let opus = "opus"
    static let videoClockRate = 90000
    static let opusClockRate = 48000

    /// The first H.264 payload type with packetization-mode=1 whose profile we produce; an exact
    /// profile match anywhere in the list beats a subset match (Constrained Baseline for Baseline).
    static func chooseVideo(in section: MediaDescription, capabilities: SenderCapabilities, ssrcs: (UInt32, UInt32),
                            allowedPayloadTypes: Set<UInt8>? = nil) -> NegotiatedVideo? {
        let offered = section.rtpMaps.compactMap { map -> (UInt8, H264ProfileLevelID, [String: String])? in
            guard map.isEncoding(h264), map.clockRate == videoClockRate,
                  allowedPayloadTypes?.contains(map.payloadType) ?? true else { return nil }
            let parameters = section.formatParameters(for: map.payloadType)?.parameters ?? [:]
            guard parameters["packetization-mode"] == "1" else { return nil }
            let profile = parameters["profile-level-id"].flatMap(H264ProfileLevelID.init) ?? .default
            return (map.payloadType, profile, parameters)
        }
        let exact: (H264ProfileLevelID, H264ProfileLevelID) -> Bool = { ours, theirs in ours.profile != nil && ours.profile == theirs.profile }
        let subset: (H264ProfileLevelID, H264ProfileLevelID) -> Bool = { ours, theirs in
            guard let mine = ours.profile, let other = theirs.profile else { return false }
            return mine.isSubset(of: other)
        }
        for matches in [exact, subset] {
            for (payloadType, remote, parameters) in offered {
                guard let ours = capabilities.h264.first(where: { matches($0, remote) }) else { continue }
                let rtxPayloadType = capabilities.rtx ? rtxPayloadType(for: payloadType, in: section) : nil
                return NegotiatedVideo(
                    mid: section.mid ?? "",
                    payloadType: payloadType,
                    remoteProfileLevelID: remote,
                    sendProfileLevelID: ours.atMostLevel(of: remote),
                    levelAsymmetryAllowed: parameters["level-asymmetry-allowed"] == "1",
                    rtxPayloadType: rtxPayloadType,
                    feedback: feedback(for: payloadType, in: section, capabilities: capabilities),
                    videoOrientationExtensionID: capabilities.videoOrientation ? extensionID(ExtensionMap.videoOrientation, in: section) : nil,
                    transportWideCCExtensionID: capabilities.transportWideCC ? extensionID(ExtensionMap.transportWideCC, in: section) : nil,
                    captureTimeExtensionID: capabilities.absoluteCaptureTime ? extensionID(ExtensionMap.absoluteCaptureTime, in: section) : nil,
                    ssrc: ssrcs.0,
                    rtxSSRC: rtxPayloadType == nil ? nil : ssrcs.1,
                    playoutDelayExtensionID: capabilities.lowLatency ? extensionID(ExtensionMap.playoutDelay, in: section) : nil,
                    receiverReferenceTime: capabilities.lowLatency
                        || section.feedback(for: payloadType).contains { $0.type == receiverReferenceTimeFeedback && $0.parameter == nil }
                )
            }
        }
        return nil
    }

    /// The first opus/48000/2 payload type.
    static func chooseAudio(in section: MediaDescription, capabilities: SenderCapabilities, ssrc: UInt32,
                            allowedPayloadTypes: Set<UInt8>? = nil) -> NegotiatedAudio? {
        guard capabilities.opus, let map = section.rtpMaps.first(where: {
            $0.isEncoding(opus) && $0.clockRate == opusClockRate && $0.channels == 2 && (allowedPayloadTypes?.contains($0.payloadType) ?? true)
        }) else { return nil }
        return NegotiatedAudio(
            mid: section.mid ?? "",
            payloadType: map.payloadType,
            formatParameters: section.formatParameters(for: map.payloadType)?.value,
            feedback: feedback(for: map.payloadType, in: section, capabilities: capabilities),
            transportWideCCExtensionID: capabilities.transportWideCC ? extensionID(ExtensionMap.transportWideCC, in: section) : nil,
            ssrc: ssrc
        )
    }

    /// `a=rtcp-fb:PT rrtr` (RFC 3611 §5.1's RRTR asked for as libwebrtc does, an RTCP feedback parameter).
    static let receiverReferenceTimeFeedback = "rrtr"

    private static func rtxPayloadType(for payloadType: UInt8, in section: MediaDescription) -> UInt8? {
        section.rtpMaps.first {
            $0.isEncoding(rtx) && $0.clockRate == videoClockRate
                && section.formatParameters(for: $0.payloadType)?.parameters["apt"] == String(payloadType)
        }?.payloadType
    }

    private static func feedback(for payloadType: UInt8, in section: MediaDescription, capabilities: SenderCapabilities) -> Set<RTCPFeedbackKind> {
        Set(section.feedback(for: payloadType).compactMap(RTCPFeedbackKind.init)).intersection(capabilities.feedback)
    }

    private static func extensionID(_ uri: String, in section: MediaDescription) -> UInt8? {
        section.extensionMaps.first { $0.uri == uri && $0.direction.map(\.receives) ?? true }?.id
    }

    /// The peer's ICE credentials, fingerprint and setup role for the bundled transport, read from
    /// `section` or the session level.
    static func remoteTransport(of description: SessionDescription, section: MediaDescription) throws(WebRTCError)
        -> (credentials: ICECredentials, fingerprint: DTLSFingerprint, setup: DTLSSetupRole, candidates: [ICECandidate]) {
        guard let ufrag = description.value(in: section, { if case .iceUfrag(let value) = $0 { value } else { nil } }),
              let pwd = description.value(in: section, { if case .icePwd(let value) = $0 { value } else { nil } }) else {
            throw .missingRemoteParameter("a=ice-ufrag / a=ice-pwd")
        }
        let fingerprints = section.attributes.compactMap { if case .fingerprint(let value) = $0 { value } else { nil } }
        let all = fingerprints.isEmpty ? description.attributes.compactMap { if case .fingerprint(let value) = $0 { value } else { nil } } : fingerprints
        guard let fingerprint = all.first(where: { $0.algorithm == .sha256 }) ?? all.first else {
            throw .missingRemoteParameter("a=fingerprint")
        }
        let setup = description.value(in: section) { if case .setup(let role) = $0 { role } else { nil } } ?? .actpass
        return (ICECredentials(ufrag: ufrag, pwd: pwd), fingerprint, setup, section.candidates)
    }
}
