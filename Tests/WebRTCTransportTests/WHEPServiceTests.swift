import MediaCore
import Codec
import Foundation
import Output
import Synchronization
import Testing
import TestSupport
import WebRTCTransport

/// Offer/answer through the service with real browser offers (the WebRTC module's captured
/// Chromium 156 and aiortc 1.16 fixtures), and session lifetime, without media.
@Suite struct WHEPServiceTests {
    static func fixture(_ name: String) throws -> String {
        try String(contentsOf: Repository.root.appendingPathComponent("Tests/WebRTCTests/Fixtures/\(name)"), encoding: .utf8)
    }

    @Test(arguments: ["chromium-156-recvonly-offer.sdp", "aiortc-1.16-recvonly-offer.sdp"])
    func answersABrowserOfferAsICELitePassiveDTLS(fixture: String) async throws {
        let service = try WHEPService(configuration: WHEPConfiguration(udpHost: "127.0.0.1", udpPort: 0))
        try await service.start(OutputStartContext())
        let port = try #require(service.udpAddress?.port)
        let (id, answer) = try await service.createSession(offer: try Self.fixture(fixture))
        #expect(answer.contains("a=ice-lite"))
        #expect(answer.contains("a=setup:passive"))
        #expect(answer.contains("a=fingerprint:sha-256 "))
        #expect(answer.contains("127.0.0.1 \(port) typ host"), "\(answer)")
        #expect(answer.contains("H264/90000"))
        #expect(service.whepStatistics.viewers <= 1)
        try await service.deleteSession(id: id)
        await #expect(throws: WHEPError.unknownSession(id)) { try await service.deleteSession(id: id) }
        await service.stop()
        await #expect(throws: WHEPError.notRunning) { _ = try await service.createSession(offer: try Self.fixture(fixture)) }
    }

    /// A viewer that asks for low latency (the POST's `?latency=low`) gets Chromium's offered
    /// playout-delay answered and is asked for RRTR; the next viewer, asking nothing, gets neither.
    @Test func aLowLatencyViewersAnswerKeepsPlayoutDelayAndAsksForRRTR() async throws {
        let service = try WHEPService(configuration: WHEPConfiguration(udpHost: "127.0.0.1", udpPort: 0))
        try await service.start(OutputStartContext())
        let (_, low) = try await service.createSession(offer: try Self.fixture("chromium-156-recvonly-offer.sdp"), lowLatency: true)
        #expect(low.contains("a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay\r\n"), "\(low)")
        #expect(low.contains("a=rtcp-fb:108 rrtr\r\n"), "\(low)")
        let (_, plain) = try await service.createSession(offer: try Self.fixture("chromium-156-recvonly-offer.sdp"))
        #expect(!plain.contains("playout-delay") && !plain.contains("rrtr"), "\(plain)")
        await service.stop()
    }

    /// The answer promises what the media sender does: RTX paired with H.264, REMB, the video
    /// orientation extension, transport-wide congestion control (the extension and its feedback)
    /// whatever the number of renditions (none handed over: the one encode), and Opus only when the
    /// stream has audio.
    @Test(arguments: [(false, 2), (true, 2), (false, 1), (true, 0)])
    func answersWithRTXREMBOrientationTransportCCAndOpusWhenThereIsAudio(audio: Bool, renditions: Int) async throws {
        let service = try WHEPService(configuration: WHEPConfiguration(udpHost: "127.0.0.1", udpPort: 0))
        try await service.start(OutputStartContext(
            audioTrack: audio ? AudioTrack(codec: .opus, format: AudioFormat(), audioSpecificConfig: nil) : nil,
            renditions: renditions > 0 ? Self.renditions(renditions) : nil))
        let (_, answer) = try await service.createSession(offer: try Self.fixture("chromium-156-recvonly-offer.sdp"))
        #expect(answer.contains(" rtx/90000\r\n") && answer.contains("a=ssrc-group:FID "), "\(answer)")
        #expect(answer.contains(" goog-remb\r\n"), "\(answer)")
        #expect(answer.contains(" urn:3gpp:video-orientation\r\n"), "\(answer)")
        #expect(answer.contains(" transport-cc\r\n") && answer.contains(" http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r\n"),
                "\(answer)")
        #expect(answer.contains("opus/48000/2") == audio, "\(answer)")
        #expect(answer.contains("m=audio 0 ") == !audio, "the audio section is rejected without audio: \(answer)")
        await service.stop()
    }

    static let twoRenditions = [RenditionDescription(name: "hd", width: 1280, height: 720, framesPerSecond: 30, bitrateBitsPerSecond: 2_500_000),
                                RenditionDescription(name: "sd", width: 640, height: 360, framesPerSecond: 30, bitrateBitsPerSecond: 600_000)]

    /// The first `count` of ``twoRenditions``, as a pipeline hands them over (key-frame requests go nowhere).
    static func renditions(_ count: Int) -> OutputStartContext.Renditions {
        OutputStartContext.Renditions(list: Array(twoRenditions.prefix(count))) { _ in }
    }

    /// With transport-cc turned off, or for a viewer whose offer has no transport-cc (aiortc offers
    /// REMB and abs-send-time only), the answer leaves it out, so the viewer estimates on its side
    /// and sends REMB: the fallback, with one rendition or several.
    @Test(arguments: [(true, "chromium-156-recvonly-offer.sdp", 2), (false, "aiortc-1.16-recvonly-offer.sdp", 1),
                      (false, "aiortc-1.16-recvonly-offer.sdp", 2)])
    func withoutTransportWideCCTheAnswerKeepsREMBOnly(turnedOff: Bool, offer: String, renditions: Int) async throws {
        var configuration = WHEPConfiguration(udpHost: "127.0.0.1", udpPort: 0)
        configuration.transportWideCC = !turnedOff
        let service = try WHEPService(configuration: configuration)
        try await service.start(OutputStartContext(renditions: Self.renditions(renditions)))
        let (_, answer) = try await service.createSession(offer: try Self.fixture(offer))
        #expect(!answer.contains("transport-cc") && !answer.contains("transport-wide-cc"), "\(answer)")
        #expect(answer.contains(" goog-remb\r\n"), "\(answer)")
        await service.stop()
    }

    /// While frames pass their rotation through, an offer without the orientation extension
    /// (aiortc's) makes the encode turn the pixels through the pipeline's fallback, and is
    /// answered; a browser's offer (with the extension) leaves the encode alone.
    @Test func aViewerThatCannotTurnARotatedStreamMakesTheEncodeTurnThePixels() async throws {
        final class Calls: Sendable { let count = Mutex(0) }
        let calls = Calls()
        let service = try WHEPService(configuration: WHEPConfiguration(udpHost: "127.0.0.1", udpPort: 0))
        try await service.start(OutputStartContext(rotatePixels: { calls.count.withLock { $0 += 1 } }))
        service.onEncodedFrame(EncodedVideoFrame(codec: .h264, data: [0, 0, 0, 1, 0x65, 0x88], nalUnitRanges: [4..<6], ptsNanos: 0, dtsNanos: 0,
                                                 isKeyFrame: true, parameterSets: ParameterSets(codec: .h264), rotation: .clockwise90))
        _ = try await service.createSession(offer: try Self.fixture("chromium-156-recvonly-offer.sdp"))
        #expect(calls.count.withLock { $0 } == 0)
        let (_, answer) = try await service.createSession(offer: try Self.fixture("aiortc-1.16-recvonly-offer.sdp"))
        #expect(calls.count.withLock { $0 } == 1)
        #expect(!answer.contains("urn:3gpp:video-orientation"), "\(answer)")
        await service.stop()
    }

    /// A viewer without the extension that arrives before the first frame (whose rotation nobody
    /// knows yet) still makes the encode turn pixels; otherwise its sender would wait for an upright
    /// key frame forever. A viewer refused by the limit switches nothing.
    @Test func aViewerBeforeTheFirstFrameStillSwitchesAndARefusedOneDoesNot() async throws {
        final class Calls: Sendable { let count = Mutex(0) }
        let calls = Calls()
        var configuration = WHEPConfiguration(udpHost: "127.0.0.1", udpPort: 0)
        configuration.maximumViewers = 1
        let service = try WHEPService(configuration: configuration)
        try await service.start(OutputStartContext(rotatePixels: { calls.count.withLock { $0 += 1 } }))
        _ = try await service.createSession(offer: try Self.fixture("aiortc-1.16-recvonly-offer.sdp"))
        #expect(calls.count.withLock { $0 } == 1)
        await #expect(throws: WHEPError.tooManyViewers(limit: 1)) {
            _ = try await service.createSession(offer: try Self.fixture("aiortc-1.16-recvonly-offer.sdp"))
        }
        #expect(calls.count.withLock { $0 } == 1)
        await service.stop()
    }

    /// Without that fallback (a service fed by something other than a ``StreamPipeline``), such a
    /// viewer would see the picture sideways: refused with a 406 that names the extension.
    @Test func withoutAFallbackRefusesViewersThatCannotTurnARotatedStream() async throws {
        let service = try WHEPService(configuration: WHEPConfiguration(udpHost: "127.0.0.1", udpPort: 0))
        try await service.start(OutputStartContext())
        service.onEncodedFrame(EncodedVideoFrame(codec: .h264, data: [0, 0, 0, 1, 0x65, 0x88], nalUnitRanges: [4..<6], ptsNanos: 0, dtsNanos: 0,
                                                 isKeyFrame: true, parameterSets: ParameterSets(codec: .h264), rotation: .clockwise90))
        await #expect(throws: WHEPError.needsVideoOrientation(degrees: 90)) {
            _ = try await service.createSession(offer: try Self.fixture("aiortc-1.16-recvonly-offer.sdp"))
        }
        #expect(WHEPError.needsVideoOrientation(degrees: 90).httpStatus == 406)
        _ = try await service.createSession(offer: try Self.fixture("chromium-156-recvonly-offer.sdp"))
        await service.stop()
    }

    @Test func rejectsGarbageOffers() async throws {
        let service = try WHEPService(configuration: WHEPConfiguration())
        try await service.start(OutputStartContext())
        await #expect { _ = try await service.createSession(offer: "not sdp") } throws: { error in
            if case WHEPError.badOffer = error { true } else { false }
        }
        await service.stop()
    }
}
