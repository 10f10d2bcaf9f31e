import DTLS
import Foundation
import Testing
@testable import WebRTC

@Suite("Offer/answer")
struct NegotiationTests {
    static let sources = LocalSources(videoSSRC: 0x1111_1111, videoRTXSSRC: 0x2222_2222, audioSSRC: 0x3333_3333, cname: "livepush")
    static let fingerprint = DTLSFingerprint(algorithm: .sha256, bytes: Array(0..<32))
    static let transport = LocalTransportParameters(
        credentials: ICECredentials(ufrag: "srvUfrag", pwd: "serverPassword0123456789"),
        fingerprint: fingerprint,
        candidates: [.host(TransportAddress("127.0.0.1", 40000)!)],
        iceLite: true
    )

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let fixture: String
        let h264: [H264ProfileLevelID]
        let videoPayloadType: UInt8?
        let rtxPayloadType: UInt8?
        let sendProfile: String?
        let rotation: NegotiatedVideo.Rotation?
        let feedback: Set<RTCPFeedbackKind>
        let audioPayloadType: UInt8?
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "Chromium: exact Constrained Baseline match beats the earlier Baseline entry",
            fixture: "chromium-156-recvonly-offer.sdp", h264: [.constrainedBaseline31, .constrainedHigh31, .high31],
            videoPayloadType: 108, rtxPayloadType: 109, sendProfile: "42e01f", rotation: .headerExtension(id: 3),
            feedback: Set(RTCPFeedbackKind.allCases), audioPayloadType: 111),
        Row(name: "Chromium: High only has no 64 entry, so nothing matches (no 64001f offered)",
            fixture: "chromium-156-recvonly-offer.sdp", h264: [.high31],
            videoPayloadType: nil, rtxPayloadType: nil, sendProfile: nil, rotation: nil, feedback: [], audioPayloadType: 111),
        Row(name: "aiortc: 42e01f, no CVO offered so rotation is physical, no FIR or transport-cc",
            fixture: "aiortc-1.16-recvonly-offer.sdp", h264: [.constrainedBaseline31],
            videoPayloadType: 101, rtxPayloadType: 102, sendProfile: "42e01f", rotation: .physical,
            feedback: [.nack, .pictureLossIndication, .receiverEstimatedMaximumBitrate], audioPayloadType: 96),
    ]

    @Test(arguments: rows)
    func answersRealOffers(row: Row) throws {
        let offer = try SessionDescription(parsing: fixture(row.fixture))
        let answerer = WebRTCAnswerer(capabilities: SenderCapabilities(h264: row.h264), sources: Self.sources, transport: Self.transport)
        let (answer, session) = try answerer.answer(offer, sessionID: 42)
        #expect(session.video?.payloadType == row.videoPayloadType)
        #expect(session.video?.rtxPayloadType == row.rtxPayloadType)
        #expect(session.video?.sendProfileLevelID.description == row.sendProfile)
        #expect(session.video?.rotation == row.rotation)
        #expect((session.video?.feedback ?? []) == row.feedback)
        #expect(session.audio?.payloadType == row.audioPayloadType)
        #expect(session.dtlsRole == .server)
        #expect(answer.isICELite)

        // The answer is valid SDP that our parser reads back identically, bundled on one transport.
        let parsed = try SessionDescription(parsing: answer.sdp)
        #expect(parsed == answer)
        #expect(answer.media.count == offer.media.count)
        let accepted = answer.media.filter { !$0.isRejected }
        #expect(answer.bundleGroup == accepted.compactMap(\.mid))
        for section in accepted {
            #expect(section.direction == .sendonly)
            #expect(section.attributes.contains(.setup(.passive)))
            #expect(section.attributes.contains(.iceUfrag("srvUfrag")))
            #expect(section.attributes.contains(.rtcpMux))
            #expect(section.candidates.first?.transportAddress == TransportAddress("127.0.0.1", 40000))
        }
    }

    @Test func chromiumSessionTransport() throws {
        let offer = try SessionDescription(parsing: fixture("chromium-156-recvonly-offer.sdp"))
        let (answer, session) = try WebRTCAnswerer(capabilities: SenderCapabilities(), sources: Self.sources, transport: Self.transport)
            .answer(offer, sessionID: 1)
        #expect(session.remoteCredentials == ICECredentials(ufrag: "NRp0", pwd: "5VcwuCqU1JLd7Xnv1tBUXW/Y"))
        #expect(session.remoteFingerprint.hashFunction == "sha-256" && session.remoteFingerprint.bytes.count == 32)
        #expect(session.bundleMids == ["0", "1"])
        #expect(session.video?.videoOrientationExtensionID == 3 && session.video?.transportWideCCExtensionID == 4)
        let video = try #require(answer.media.first)
        #expect(video.extensionMaps == [ExtensionMap(id: 3, uri: ExtensionMap.videoOrientation), ExtensionMap(id: 4, uri: ExtensionMap.transportWideCC)])
        #expect(video.formatParameters(for: 108)?.value == "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")
        #expect(video.formatParameters(for: 109)?.value == "apt=108")
        #expect(video.ssrcGroups == [SSRCGroup(semantics: "FID", ssrcs: [0x1111_1111, 0x2222_2222])])
        #expect(video.formats == ["108", "109"])
    }

    /// Chromium offers abs-capture-time only when the page asks for it (setHeaderExtensionsToNegotiate):
    /// the answer then keeps it beside CVO and transport-cc, and the session names its id.
    @Test func anOfferedAbsCaptureTimeIsAnsweredAndNegotiated() throws {
        let extmap = "a=extmap:12 \(ExtensionMap.absoluteCaptureTime)\r\n"
        let text = try fixture("chromium-156-recvonly-offer.sdp")
            .replacingOccurrences(of: "a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id\r\n",
                                  with: "a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id\r\n" + extmap)
        #expect(text.contains(extmap))
        let offer = try SessionDescription(parsing: text)
        let (answer, session) = try WebRTCAnswerer(capabilities: SenderCapabilities(), sources: Self.sources, transport: Self.transport)
            .answer(offer, sessionID: 1)
        #expect(session.video?.captureTimeExtensionID == 12)
        #expect(answer.media.first?.extensionMaps.contains(ExtensionMap(id: 12, uri: ExtensionMap.absoluteCaptureTime)) == true)
        // Without the capability it is neither answered nor used.
        let (plain, plainSession) = try WebRTCAnswerer(capabilities: SenderCapabilities(absoluteCaptureTime: false), sources: Self.sources,
                                                       transport: Self.transport).answer(offer, sessionID: 1)
        #expect(plainSession.video?.captureTimeExtensionID == nil)
        #expect(plain.media.first?.extensionMaps.contains { $0.uri == ExtensionMap.absoluteCaptureTime } == false)
        // Chromium's default offer has no abs-capture-time: nothing to send it in.
        let (_, defaultSession) = try WebRTCAnswerer(capabilities: SenderCapabilities(), sources: Self.sources, transport: Self.transport)
            .answer(SessionDescription(parsing: fixture("chromium-156-recvonly-offer.sdp")), sessionID: 1)
        #expect(defaultSession.video?.captureTimeExtensionID == nil)
    }

    /// A viewer that asked for low latency (WHEP's `?latency=low`): the answer keeps the
    /// playout-delay extension Chromium always offers and asks for RRTR (`a=rtcp-fb:PT rrtr`),
    /// which Chromium's offer does not list; a default viewer's answer has neither.
    @Test func aLowLatencyViewerGetsPlayoutDelayAndIsAskedForReceiverReferenceTimes() throws {
        let offer = try SessionDescription(parsing: fixture("chromium-156-recvonly-offer.sdp"))
        var capabilities = SenderCapabilities()
        capabilities.lowLatency = true
        let (answer, session) = try WebRTCAnswerer(capabilities: capabilities, sources: Self.sources, transport: Self.transport).answer(offer, sessionID: 1)
        #expect(session.video?.playoutDelayExtensionID == 5 && session.video?.receiverReferenceTime == true)
        let video = try #require(answer.media.first)
        #expect(video.extensionMaps == [ExtensionMap(id: 3, uri: ExtensionMap.videoOrientation), ExtensionMap(id: 4, uri: ExtensionMap.transportWideCC),
                                        ExtensionMap(id: 5, uri: ExtensionMap.playoutDelay)])
        #expect(answer.sdp.contains("a=rtcp-fb:108 rrtr\r\n"))
        #expect(try SessionDescription(parsing: answer.sdp) == answer)

        let (plain, plainSession) = try WebRTCAnswerer(capabilities: SenderCapabilities(), sources: Self.sources, transport: Self.transport)
            .answer(offer, sessionID: 1)
        #expect(plainSession.video?.playoutDelayExtensionID == nil && plainSession.video?.receiverReferenceTime == false)
        #expect(!plain.sdp.contains("playout-delay") && !plain.sdp.contains("rrtr"))

        // An offer that lists rrtr itself has it answered whatever the latency asked for.
        let withRRTR = try SessionDescription(parsing: fixture("chromium-156-recvonly-offer.sdp")
            .replacingOccurrences(of: "a=rtcp-fb:108 nack pli\r\n", with: "a=rtcp-fb:108 nack pli\r\na=rtcp-fb:108 rrtr\r\n"))
        let (answered, answeredSession) = try WebRTCAnswerer(capabilities: SenderCapabilities(), sources: Self.sources, transport: Self.transport)
            .answer(withRRTR, sessionID: 1)
        #expect(answeredSession.video?.receiverReferenceTime == true && answered.sdp.contains("a=rtcp-fb:108 rrtr\r\n"))
        #expect(answeredSession.video?.playoutDelayExtensionID == nil)
    }

    @Test func aiortcPicksSHA256AmongFingerprints() throws {
        let offer = try SessionDescription(parsing: fixture("aiortc-1.16-recvonly-offer.sdp"))
        let (_, session) = try WebRTCAnswerer(capabilities: SenderCapabilities(), sources: Self.sources, transport: Self.transport)
            .answer(offer, sessionID: 1)
        #expect(session.remoteFingerprint.hashFunction == "sha-256")
        #expect(session.remoteCandidates.first?.transportAddress == TransportAddress("127.0.0.1", 51815))
    }

    static let profiles: [(String, H264ProfileLevelID.Profile?)] = [
        ("42e01f", .constrainedBaseline), ("42c01f", .constrainedBaseline), ("4de01f", .constrainedBaseline),
        ("58c01f", .constrainedBaseline), ("42001f", .baseline), ("58801f", .baseline), ("58001f", .extended),
        ("4d001f", .main), ("640c1f", .constrainedHigh), ("64001f", .high), ("f4001f", .high444Predictive),
        ("640c2a", .constrainedHigh), ("6e001f", nil), ("4d401f", .main), ("4d201f", nil),
    ]

    @Test(arguments: profiles)
    func profilesFromRFC6184Table5(text: String, profile: H264ProfileLevelID.Profile?) throws {
        let id = try #require(H264ProfileLevelID(text))
        #expect(id.profile == profile)
        #expect(id.description == text)
    }

    @Test func lowerOfferedLevelCapsTheEncoder() throws {
        let text = try fixture("aiortc-1.16-recvonly-offer.sdp").replacingOccurrences(of: "profile-level-id=42e01f", with: "profile-level-id=42e015")
        let (answer, session) = try WebRTCAnswerer(capabilities: SenderCapabilities(), sources: Self.sources, transport: Self.transport)
            .answer(SessionDescription(parsing: text), sessionID: 1)
        #expect(session.video?.sendProfileLevelID.description == "42e015")
        #expect(answer.media[0].formatParameters(for: 101)?.parameters["profile-level-id"] == "42e015")
    }

    @Test func offerWithoutH264RejectsVideoButKeepsAudio() throws {
        let text = "v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=group:BUNDLE v a\r\n"
            + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:v\r\na=recvonly\r\na=rtpmap:96 VP8/90000\r\n"
            + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:a\r\na=sendrecv\r\na=rtpmap:111 opus/48000/2\r\n"
            + "a=ice-ufrag:abcd\r\na=ice-pwd:0123456789012345678901\r\na=fingerprint:sha-256 \(Array(repeating: "AA", count: 32).joined(separator: ":"))\r\na=setup:active\r\n"
        let (answer, session) = try WebRTCAnswerer(capabilities: SenderCapabilities(), sources: Self.sources, transport: Self.transport)
            .answer(SessionDescription(parsing: text), sessionID: 1)
        #expect(session.video == nil)
        #expect(answer.media[0].isRejected && answer.media[0].mid == "v")
        #expect(answer.media[1].direction == .sendonly)
        #expect(answer.bundleGroup == ["a"])
        #expect(answer.media[1].attributes.contains(.setup(.passive)))
        #expect(session.dtlsRole == .server)
    }

    @Test func offerWithNothingUsableThrows() throws {
        let text = "v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:0\r\n"
        #expect(throws: WebRTCError.noCommonCodec(mid: nil)) {
            try WebRTCAnswerer(capabilities: SenderCapabilities(), sources: Self.sources, transport: Self.transport)
                .answer(SessionDescription(parsing: text), sessionID: 1)
        }
    }

    // MARK: WHIP offerer

    static let clientTransport = LocalTransportParameters(
        credentials: ICECredentials(ufrag: "cliUfrag", pwd: "clientPassword0123456789"), fingerprint: fingerprint,
        candidates: [.host(TransportAddress("127.0.0.1", 50000)!)], iceLite: false)

    /// What a WHIP server (Janus-like: ICE-lite, passive) answers to our offer, choosing High and CVO.
    static let serverAnswer = """
        v=0\r\no=- 99 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=ice-lite\r\na=group:BUNDLE 0 1\r\n\
        m=video 9 UDP/TLS/RTP/SAVPF 98 99\r\nc=IN IP4 127.0.0.1\r\na=mid:0\r\na=recvonly\r\na=extmap:2 urn:3gpp:video-orientation\r\n\
        a=rtcp-mux\r\na=rtpmap:98 H264/90000\r\na=rtcp-fb:98 nack\r\na=rtcp-fb:98 nack pli\r\n\
        a=fmtp:98 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=640c1f\r\n\
        a=rtpmap:99 rtx/90000\r\na=fmtp:99 apt=98\r\na=ice-ufrag:srv1\r\na=ice-pwd:serverpasswordserverpass\r\n\
        a=fingerprint:sha-256 \(Array(repeating: "BB", count: 32).joined(separator: ":"))\r\na=setup:passive\r\n\
        a=candidate:1 1 udp 2130706431 127.0.0.1 8189 typ host\r\n\
        m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 127.0.0.1\r\na=mid:1\r\na=recvonly\r\na=rtcp-mux\r\na=rtpmap:111 opus/48000/2\r\n\
        a=fmtp:111 minptime=10;useinbandfec=1\r\n
        """

    @Test func whipOfferListsEveryCodecSendOnly() throws {
        let offerer = WebRTCOfferer(capabilities: SenderCapabilities(), sources: Self.sources)
        let offer = offerer.offer(transport: Self.clientTransport, sessionID: 7)
        let parsed = try SessionDescription(parsing: offer.sdp)
        #expect(parsed == offer)
        #expect(offer.bundleGroup == ["0", "1"])
        #expect(!offer.isICELite)
        let video = offer.media[0]
        #expect(video.direction == .sendonly && video.attributes.contains(.setup(.actpass)))
        #expect(video.formats == ["96", "97", "98", "99", "100", "101"])
        #expect(video.formatParameters(for: 98)?.parameters["profile-level-id"] == "640c1f")
        #expect(video.formatParameters(for: 101)?.value == "apt=100")
        #expect(offer.media[1].rtpMaps == [RTPMap(payloadType: 111, encodingName: "opus", clockRate: 48000, channels: 2)])
        #expect(video.extensionMaps.contains(ExtensionMap(id: 3, uri: ExtensionMap.absoluteCaptureTime)))
    }

    @Test func aWHIPAnswerThatKeepsAbsCaptureTimeNegotiatesIt() throws {
        let offerer = WebRTCOfferer(capabilities: SenderCapabilities(), sources: Self.sources)
        let offer = offerer.offer(transport: Self.clientTransport, sessionID: 7)
        let withExtension = Self.serverAnswer.replacingOccurrences(of: "a=extmap:2 urn:3gpp:video-orientation\r\n",
                                                                   with: "a=extmap:2 urn:3gpp:video-orientation\r\na=extmap:3 \(ExtensionMap.absoluteCaptureTime)\r\n")
        #expect(withExtension != Self.serverAnswer)
        #expect(try offerer.process(answer: SessionDescription(parsing: withExtension), to: offer).video?.captureTimeExtensionID == 3)
        #expect(try offerer.process(answer: SessionDescription(parsing: Self.serverAnswer), to: offer).video?.captureTimeExtensionID == nil)
    }

    @Test func whipAnswerBecomesSession() throws {
        let offerer = WebRTCOfferer(capabilities: SenderCapabilities(), sources: Self.sources)
        let offer = offerer.offer(transport: Self.clientTransport, sessionID: 7)
        let session = try offerer.process(answer: SessionDescription(parsing: Self.serverAnswer), to: offer)
        #expect(session.video?.payloadType == 98 && session.video?.rtxPayloadType == 99)
        #expect(session.video?.sendProfileLevelID == .constrainedHigh31)
        #expect(session.video?.rotation == .headerExtension(id: 2))
        #expect(session.audio?.payloadType == 111)
        #expect(session.dtlsRole == .client)
        #expect(session.remoteICELite)
        #expect(session.remoteCredentials.ufrag == "srv1")
        #expect(session.remoteCandidates.first?.transportAddress == TransportAddress("127.0.0.1", 8189))
    }

    @Test func chromiumAnswerToOurWHIPOffer() throws {
        let offerer = WebRTCOfferer(capabilities: SenderCapabilities(), sources: Self.sources)
        let offer = offerer.offer(transport: Self.clientTransport, sessionID: 77)
        let answer = try SessionDescription(parsing: fixture("chromium-156-answer-to-whip-offer.sdp"))
        let session = try offerer.process(answer: answer, to: offer)
        #expect(session.video?.payloadType == 96 && session.video?.rtxPayloadType == 97)
        #expect(session.video?.sendProfileLevelID == .constrainedBaseline31)
        #expect(session.video?.feedback == Set(RTCPFeedbackKind.allCases))
        #expect(session.video?.rotation == .headerExtension(id: 2))
        #expect(session.video?.transportWideCCExtensionID == 1)
        #expect(session.audio?.payloadType == 111 && session.audio?.feedback == [.transportWideCC])
        #expect(session.dtlsRole == .server, "Chromium answered setup:active")
        #expect(!session.remoteICELite)
        #expect(session.remoteCredentials.ufrag == "hf1a")
        #expect(session.bundleMids == ["0", "1"])
    }

    @Test func whipAnswerWithUnofferedPayloadTypeIsRejected() throws {
        let offerer = WebRTCOfferer(capabilities: SenderCapabilities(), sources: Self.sources)
        let offer = offerer.offer(transport: Self.clientTransport, sessionID: 7)
        let answer = try SessionDescription(parsing: Self.serverAnswer.replacingOccurrences(of: "98", with: "120"))
        #expect(throws: WebRTCError.noCommonCodec(mid: "0")) { try offerer.process(answer: answer, to: offer) }
        let actpass = try SessionDescription(parsing: Self.serverAnswer.replacingOccurrences(of: "setup:passive", with: "setup:actpass"))
        #expect(throws: WebRTCError.answerMismatch("a=setup:actpass in an answer")) { try offerer.process(answer: actpass, to: offer) }
    }
}
