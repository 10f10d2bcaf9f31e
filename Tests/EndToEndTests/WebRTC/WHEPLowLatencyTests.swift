import Foundation
import Testing
import TestSupport

/// A Chromium viewer that asks for low latency (the player page as a new user opens it: it POSTs to
/// `/whep?latency=low`; docs/webrtc-media.md) against one that does not (`?latency=default`), each
/// playing the player page over WHEP in a loopback-only namespace
/// (``WHEPPeerTests/watch(client:streamArguments:seconds:)``, chromium_latency.py). The verdicts
/// are what Chromium negotiated and reports, not how fast this machine is: the answer keeps
/// playout-delay and asks for RRTR, Chromium's RTCP XR is answered with a DLRR it accepts (its
/// remote-outbound-rtp has round-trip measurements, which a receive-only peer has from nowhere
/// else), its jitter buffer hands frames on without waiting for its target delay, and with that round
/// trip Chromium fills requestVideoFrameCallback's `captureTime` (from the Sender Reports), which it
/// never does for a default viewer.
@Suite(.serialized) struct WHEPLowLatencyTests {
    static let stream = WHEPCaptureTimeTests.stream

    func run(query: String, latency: String) throws -> [String: Any] {
        try ExternalTool.require("chromium"); try ExternalTool.require("chromedriver")
        let (result, log) = try WHEPPeerTests().watch(
            client: "\"$PY\" \"$PEERS/chromium_latency.py\" \"http://127.0.0.1:8080/player.html\(query)\" 150 25",
            streamArguments: Self.stream, seconds: 35)
        print("WHEPLowLatencyTests \(query.isEmpty ? "the page as it opens" : query): \(result)")
        #expect(result["state"] as? String == "connected", "\(result)\n\(log.suffix(1500))")
        // What livepush made of the viewer (its join line; `/api/status` `viewerLinks.*.lowLatency`).
        let joined = log.split(separator: "\n").filter { $0.contains("WHEP viewer joined") }
        #expect(!joined.isEmpty && joined.allSatisfy { $0.contains("latency=\(latency)") }, "\(joined)\n\(log.suffix(1500))")
        #expect((result["frames"] as? Int ?? 0) >= 150, "frames shown with their code: \(result)")
        return result
    }

    static func figure(_ result: [String: Any], _ group: String, _ key: String) -> Double? {
        ((result[group] as? [String: Any])?[key] as? NSNumber)?.doubleValue
    }

    @Test func thePlayerPageAsksForLowLatencyNegotiatesPlayoutDelayAndGetsItsRoundTripFromXR() throws {
        let result = try run(query: "", latency: "low")
        let extensions = result["answerExtensions"] as? [String] ?? []
        #expect(extensions.contains { $0.hasSuffix(" http://www.webrtc.org/experiments/rtp-hdrext/playout-delay") }, "\(result)")
        #expect((result["answerFeedback"] as? [String] ?? []).contains("rrtr"), "\(result)")
        // Chromium sent RRTR and took our DLRR: it measured round trips on our sender's reports.
        #expect((Self.figure(result, "remoteOutbound", "roundTripTimeMeasurements") ?? 0) >= 1, "\(result)")
        #expect((Self.figure(result, "remoteOutbound", "roundTripTime") ?? .infinity) < 1, "\(result)")
        // A zero minimum puts Chromium in low-latency rendering: frames leave its jitter buffer as
        // soon as they are complete, not when its target delay has passed (a default viewer's frames
        // wait about the target: measured 0.7–0.9 of it; this one's 0.02–0.11 of it at any load).
        let held = try #require(Self.figure(result, "window", "jitterBufferDelayMs"), "\(result)")
        let target = try #require(Self.figure(result, "window", "jitterBufferTargetDelayMs"), "\(result)")
        #expect(held < target / 2, "jitter buffer delay per frame against its target: \(result)")
    }

    /// The same page told not to ask (`?latency=default`): no playout-delay, no RRTR asked for, and
    /// so no round trip.
    @Test func aDefaultViewerNegotiatesNeitherAndHasNoRoundTrip() throws {
        let result = try run(query: "?latency=default", latency: "default")
        #expect(!(result["answerExtensions"] as? [String] ?? []).contains { $0.contains("playout-delay") }, "\(result)")
        #expect(!(result["answerFeedback"] as? [String] ?? []).contains("rrtr"), "\(result)")
        #expect(Self.figure(result, "remoteOutbound", "roundTripTimeMeasurements") == 0, "\(result)")
        #expect(result["withCaptureTime"] as? Int == 0, "rVFC captureTime without a round trip: \(result)")
    }

    /// With the round trip from XR, Chromium maps each frame's RTP timestamp to the sender's wall
    /// clock and gives it as rVFC `captureTime`: the frame code's capture time within Chromium's own
    /// estimate of our clock (``WHEPCaptureTimeTests/chromiumCaptureTimeBoundMs``; measured −0.25 to
    /// −1.7 ms idle, down to −7.6 ms while the estimate settles on a loaded machine).
    /// chromium_capture_time.py matches each sample to its code (see WHEPCaptureTimeTests).
    @Test func withTheRoundTripChromiumGivesEachFramesCaptureTime() throws {
        try ExternalTool.require("chromium"); try ExternalTool.require("chromedriver")
        let (result, log) = try WHEPPeerTests().watch(
            client: "\"$PY\" \"$PEERS/chromium_capture_time.py\" http://127.0.0.1:8080/player.html 12 default",
            streamArguments: Self.stream, seconds: 35)
        print("WHEPLowLatencyTests captureTime: \(result)")
        #expect(result["state"] as? String == "connected", "\(result)\n\(log.suffix(1500))")
        let errors = WHEPCaptureTimeTests.spread(result, "captureTimeErrorMs")
        #expect(errors.count >= 60, "frames shown with their code and a captureTime: \(result)")
        #expect(errors.maxAbs < WHEPCaptureTimeTests.chromiumCaptureTimeBoundMs, "rVFC captureTime − frame code capture time: \(result)")
    }
}
