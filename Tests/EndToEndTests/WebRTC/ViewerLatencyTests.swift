import Foundation
import Testing
import TestSupport

/// Latency measured where the viewer is: headless Chromium plays `stream --web`'s player page with
/// the consent box ticked (chromium_viewer_latency.py). For each shown frame the page's capture-time
/// figure (abs-capture-time's captureTimestamp) and its frame-code figure, taken against one reading
/// of the page's clock, agree within a frame interval; the page's reports reach the server's
/// `/metrics` histogram and `/api/status` for the WHEP output. Both figures carry the same machine
/// load, so the verdicts compare them with each other, never with a fixed latency.
@Suite(.serialized) struct ViewerLatencyTests {
    static let framesPerSecond = 30.0
    static let stream = ["--source", "testpattern", "--size", "640x360", "--fps", "30", "--profile", "baseline", "--keyint", "30"]

    static func figure(_ result: [String: Any], _ key: String, _ field: String) -> Double? {
        ((result[key] as? [String: Any])?[field] as? NSNumber)?.doubleValue
    }

    @Test func thePagesCaptureTimeAgreesWithItsFrameCodesAndReachesTheHistogram() throws {
        try ExternalTool.require("chromium"); try ExternalTool.require("chromedriver")
        let (result, log) = try WHEPPeerTests().watch(
            client: "\"$PY\" \"$PEERS/chromium_viewer_latency.py\" http://127.0.0.1:8080/player.html 16",
            streamArguments: Self.stream, seconds: 40)
        print("ViewerLatencyTests: \(result)")
        #expect(result["state"] as? String == "connected", "\(result)\n\(log.suffix(1500))")
        #expect(result["captureTimeRequested"] as? Bool == true && result["consent"] as? Bool == true, "\(result)")
        let frameMs = 1000 / Self.framesPerSecond
        let pairs = Int(Self.figure(result, "differenceMs", "count") ?? 0)
        #expect(pairs >= 60, "frames with both figures: \(result)")
        // A frame's two figures differ by the frame code's whole milliseconds, and by a frame where the
        // page's canvas drew the picture shown before (a busy machine): most within a frame, the median well within.
        #expect(abs(Self.figure(result, "differenceMs", "p50") ?? .infinity) < frameMs, "capture-time − frame-code: \(result)")
        #expect((Self.figure(result, "absoluteDifferenceMs", "p90") ?? .infinity) < frameMs, "\(result)")
        let medians = (Self.figure(result, "captureMs", "p50") ?? .infinity) - (Self.figure(result, "codeMs", "p50") ?? 0)
        #expect(abs(medians) < frameMs, "the two figures' medians: \(result)")

        let reports = result["reports"] as? [String: Any] ?? [:]
        #expect((reports["sent"] as? Int ?? 0) >= 2 && reports["refused"] as? Int == 0, "the page's reports: \(result)")
        let outputs = result["outputs"] as? [[String: Any]] ?? []
        let whep = try #require(outputs.first { $0["kind"] as? String == "whep" }, "\(result)")
        let id = try #require(whep["id"] as? String)
        let counts = result["histogramCounts"] as? [String: Any] ?? [:]
        #expect(((counts[id] as? NSNumber)?.doubleValue ?? 0) > 0, "livepush_viewer_latency_seconds_count for \(id): \(result)")
        let summary = whep["viewerLatency"] as? [String: Any] ?? [:]
        #expect(summary["viewersReporting"] as? Int == 1 && summary["clocks"] as? [String] == ["capture_time"], "\(result)")
        #expect(outputs.allSatisfy { $0["kind"] as? String == "whep" || $0["viewerLatency"] == nil || $0["viewerLatency"] is NSNull }, "\(result)")
    }
}
