import DTLS

/// What offer/answer settled, for the transport and the RTP sender to act on: payload types and
/// extension ids to write, which feedback to expect, and how to reach and authenticate the peer.
public struct NegotiatedSession: Sendable, Hashable {
    public var video: NegotiatedVideo?
    public var audio: NegotiatedAudio?
    /// The mids sharing the one transport, the BUNDLE tag first.
    public var bundleMids: [String]
    public var remoteCredentials: ICECredentials
    public var remoteCandidates: [ICECandidate]
    /// The certificate hash the DTLS handshake must present (sha-256 when offered).
    public var remoteFingerprint: DTLSFingerprint
    public var remoteICELite: Bool
    public var dtlsRole: DTLSRole
}

/// The negotiated H.264 stream.
public struct NegotiatedVideo: Sendable, Hashable {
    /// How the sender conveys the frame's rotation (issue 6: as WebRTC does when the peer offers CVO).
    public enum Rotation: Sendable, Hashable {
        case headerExtension(id: UInt8)
        case physical
    }

    public var mid: String
    public var payloadType: UInt8
    /// The receiver's `profile-level-id` for this payload type.
    public var remoteProfileLevelID: H264ProfileLevelID
    /// What the encoder must produce: our profile, at no more than the receiver's level.
    public var sendProfileLevelID: H264ProfileLevelID
    public var levelAsymmetryAllowed: Bool
    public var rtxPayloadType: UInt8?
    public var feedback: Set<RTCPFeedbackKind>
    public var videoOrientationExtensionID: UInt8?
    public var transportWideCCExtensionID: UInt8?
    /// abs-capture-time: each frame's capture time on its first packet.
    public var captureTimeExtensionID: UInt8?
    public var ssrc: UInt32
    public var rtxSSRC: UInt32?
    /// playout-delay: bounds for the receiver's jitter buffer on each frame's first packet.
    public var playoutDelayExtensionID: UInt8? = nil
    /// The receiver sends RFC 3611 receiver reference times (RRTR) and we answer with DLRR: the
    /// offer listed `rrtr` for this payload type, or we add it for a low-latency viewer.
    public var receiverReferenceTime = false

    public var rotation: Rotation {
        videoOrientationExtensionID.map { .headerExtension(id: $0) } ?? .physical
    }
}

/// The negotiated Opus stream.
public struct NegotiatedAudio: Sendable, Hashable {
    public var mid: String
    public var payloadType: UInt8
    /// The receiver's Opus `fmtp` (RFC 7587 §6.1), echoed in an answer.
    public var formatParameters: String?
    public var feedback: Set<RTCPFeedbackKind>
    public var transportWideCCExtensionID: UInt8?
    public var ssrc: UInt32
}
