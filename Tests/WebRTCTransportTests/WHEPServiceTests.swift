import Foundation
import Testing
import TestSupport
import WebRTCTransport

/// Offer/answer through the service with real browser offers (the WebRTC module's captured
/// Chromium 156 and aiortc 1.16 fixtures), and session lifetime, without media.
@Suite struct WHEPServiceTests {
    static func fixture(_ name: String) throws -> String {
        try String(contentsOf: LivepushBinary.repository.appendingPathComponent("Tests/WebRTCTests/Fixtures/\(name)"), encoding: .utf8)
    }

    @Test(arguments: ["chromium-156-recvonly-offer.sdp", "aiortc-1.16-recvonly-offer.sdp"])
    func answersABrowserOfferAsICELitePassiveDTLS(fixture: String) async throws {
        let service = try WHEPService(configuration: WHEPConfiguration(udpHost: "127.0.0.1", udpPort: 0))
        try await service.start(requestKeyFrame: {})
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

    @Test func rejectsGarbageOffers() async throws {
        let service = try WHEPService(configuration: WHEPConfiguration())
        try await service.start(requestKeyFrame: {})
        await #expect { _ = try await service.createSession(offer: "not sdp") } throws: { error in
            if case WHEPError.badOffer = error { true } else { false }
        }
        await service.stop()
    }
}
