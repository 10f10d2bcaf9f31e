import DTLS

/// What livepush can send, the input to offer/answer for both the WHEP answerer and the WHIP
/// offerer: which H.264 profiles the encoder can produce, whether there is Opus audio, and the
/// RTP features the sender implements.
public struct SenderCapabilities: Sendable, Hashable {
    /// In our order of preference, used as-is for a WHIP offer; a WHEP answer follows the offer's order.
    public var h264: [H264ProfileLevelID]
    /// Opus 48000/2 (RFC 7587).
    public var opus: Bool
    /// RFC 4588 retransmission on its own payload type and SSRC.
    public var rtx: Bool
    /// Send rotation in urn:3gpp:video-orientation instead of rotating pixels.
    public var videoOrientation: Bool
    /// Transport-wide sequence numbers for transport-cc feedback.
    public var transportWideCC: Bool
    /// Each video frame's capture time (wall clock, NTP) in abs-capture-time on its first packet.
    public var absoluteCaptureTime: Bool
    public var feedback: Set<RTCPFeedbackKind>
    /// The viewer asked for low latency (WHEP's `?latency=low`): the answer keeps its playout-delay
    /// extension (sent with no minimum, docs/webrtc-media.md) and asks it for receiver reference
    /// times (`a=rtcp-fb:PT rrtr`, RFC 3611), which the sender answers so a receive-only peer has a
    /// round trip. Off: answers as before.
    public var lowLatency = false

    public init(h264: [H264ProfileLevelID] = [.constrainedBaseline31, .constrainedHigh31, .high31], opus: Bool = true,
                rtx: Bool = true, videoOrientation: Bool = true, transportWideCC: Bool = true, absoluteCaptureTime: Bool = true,
                feedback: Set<RTCPFeedbackKind> = Set(RTCPFeedbackKind.allCases)) {
        self.h264 = h264
        self.opus = opus
        self.rtx = rtx
        self.videoOrientation = videoOrientation
        self.transportWideCC = transportWideCC
        self.absoluteCaptureTime = absoluteCaptureTime
        self.feedback = feedback
    }
}

/// Our RTP sources as the description names them (RFC 5576 `a=ssrc`, RFC 8830 `a=msid`), so the
/// receiver knows SSRC, RTX pairing and track before the first packet.
public struct LocalSources: Sendable, Hashable {
    public var videoSSRC: UInt32
    public var videoRTXSSRC: UInt32
    public var audioSSRC: UInt32
    public var cname: String
    public var streamID: String

    public init(videoSSRC: UInt32, videoRTXSSRC: UInt32, audioSSRC: UInt32, cname: String, streamID: String = "livepush") {
        self.videoSSRC = videoSSRC
        self.videoRTXSSRC = videoRTXSSRC
        self.audioSSRC = audioSSRC
        self.cname = cname
        self.streamID = streamID
    }
}

/// Our side of the one bundled transport: ICE credentials and candidates, DTLS certificate hash.
public struct LocalTransportParameters: Sendable, Hashable {
    public var credentials: ICECredentials
    public var fingerprint: DTLSFingerprint
    public var candidates: [ICECandidate]
    /// True for the WHEP server (it only answers checks), false for the WHIP client's full agent.
    public var iceLite: Bool

    public init(credentials: ICECredentials, fingerprint: DTLSFingerprint, candidates: [ICECandidate], iceLite: Bool) {
        self.credentials = credentials
        self.fingerprint = fingerprint
        self.candidates = candidates
        self.iceLite = iceLite
    }
}
