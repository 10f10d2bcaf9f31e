import Foundation
import Testing
import TestSupport

/// Chromium watching `livepush stream --web`, with one rendition or two, negotiates transport-wide
/// congestion control: its offer carries the transport-cc extension and feedback, livepush's
/// answer keeps both, every RTP
/// packet carries the transport-wide sequence number, and Chromium's feedback reaches the viewer's
/// send-side estimator (counted and estimated in the run report livepush prints when it stops).
@Suite(.serialized) struct WHEPTransportCCTests {
    @Test(arguments: [true, false])
    func chromiumSendsTransportCCFeedbackAndTheViewerHasAnEstimate(twoRenditions: Bool) throws {
        try ExternalTool.require("chromium"); try ExternalTool.require("chromedriver")
        let (stats, log) = try WHEPPeerTests().watch(
            client: "\"$PY\" \"$PEERS/chromium_whep.py\" http://127.0.0.1:8080/player.html 20",
            streamArguments: ["--source", "testpattern", "--size", "640x360", "--fps", "30", "--bitrate", "1M", "--profile", "baseline"]
                + (twoRenditions ? ["--rendition", "top=640x360@30:1M", "--rendition", "low=320x180@30:300k"] : []),
            seconds: 30)
        #expect((stats["framesDecoded"] as? Int ?? 0) >= 100, "\(stats)\n\(log.suffix(1500))")
        // In capture order by the RTP timestamps Chromium rendered (none back, none twice); the page's own
        // count also takes a canvas read of the picture before on a busy machine (seen once at load 10).
        #expect(WHEPPeerTests.codesInOrder(stats), "\(stats)")
        let report = try #require(log.split(separator: "\n").last { $0.contains("transport-cc feedback") }, "no run report: \(log.suffix(1500))")
        let feedback = try #require(Self.number(after: "transport-cc feedback ", in: report), "\(report)")
        // Chromium sends feedback every 50–100 ms (more often under load); the viewer watched ≥ 5 s.
        #expect(feedback >= 20, "\(report)")
        let estimate = try #require(Self.number(after: "last estimate ", in: report), "no estimate: \(report)")
        #expect(report.contains("(transport-cc)"), "the estimate came from REMB, not transport-cc: \(report)")
        // A 1 Mbit/s stream on loopback: the estimate starts at 1.3 Mbit/s and has no reason to fall far.
        #expect(estimate >= 500_000 && estimate <= 2_000_000, "\(report)")
    }

    /// The fallback: Chromium's offer without transport-cc (the page strips its lines, as a browser
    /// without it would send) gets an answer without it, and Chromium's REMB is the viewer's
    /// estimate, with one rendition capping the shared encoder.
    @Test
    func chromiumOfferingNoTransportCCFallsBackToREMB() throws {
        try ExternalTool.require("chromium"); try ExternalTool.require("chromedriver")
        let (stats, log) = try WHEPPeerTests().watch(
            // Until 300 frames decoded (10 s): Chromium's receive-side estimate needs a few seconds of video before its first REMB.
            client: "WHEP_OFFER_WITHOUT_TRANSPORT_CC=1 \"$PY\" \"$PEERS/chromium_whep.py\" http://127.0.0.1:8080/player.html 20 300",
            streamArguments: ["--source", "testpattern", "--size", "640x360", "--fps", "30", "--bitrate", "1M", "--profile", "baseline"],
            seconds: 25)
        #expect((stats["framesDecoded"] as? Int ?? 0) >= 100, "\(stats)\n\(log.suffix(1500))")
        #expect((stats["offerLinesRemoved"] as? Int ?? 0) >= 2, "the extension and its feedback left the offer: \(stats)")
        let report = try #require(log.split(separator: "\n").last { $0.contains("transport-cc feedback") }, "no run report: \(log.suffix(1500))")
        #expect(Self.number(after: "transport-cc feedback ", in: report) == 0, "\(report)")
        #expect(report.contains("(remb)"), "the estimate came from REMB: \(report)")
        #expect((Self.number(after: "REMB ", in: report) ?? 0) > 0, "Chromium's REMB reached the bitrate policy: \(report)")
    }

    static func number(after label: String, in line: Substring) -> Int? {
        guard let range = line.range(of: label) else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }
}
