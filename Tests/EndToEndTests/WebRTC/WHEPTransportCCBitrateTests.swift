import Foundation
import Testing
import TestSupport

/// With one rendition the viewer's transport-cc estimate caps the shared encoder, as REMB did:
/// headless Chromium watches `livepush stream --web` (a busy 640x360 pattern at 2.5 Mbit/s, whose
/// grain spends the whole bitrate) through a relay whose token bucket passes 1 Mbit/s (300 ms
/// drop-tail queue). The send-side estimate starts at 1.3 × 2.5 Mbit/s, falls to what the link
/// carries, and the bitrate policy lowers the encoder below the link (85 % of the smallest
/// estimate), so Chromium keeps decoding. In a loopback-only namespace, as ``WHEPLossTests``.
@Suite(.serialized) struct WHEPTransportCCBitrateTests {
    static let whepPort = 40_020
    static let relayPort = 40_022
    static let linkBitsPerSecond = 1_000_000

    @Test
    func theTransportCCEstimateLowersTheSharedEncoderBelowANarrowLink() throws {
        for peer in ["unshare", "chromium", "chromedriver"] { try ExternalTool.require(peer) }
        let namespace = try LoopbackNamespace(script: """
            set -u
            '\(try LivepushBinary.path())' stream --source testpattern:busy --size 640x360 --fps 30 --bitrate 2500k \
              --profile baseline --web 127.0.0.1:8080 --adaptive-bitrate --webrtc-port \(Self.whepPort) --duration 60 > livepush.log 2>&1 &
            LIVEPUSH=$!
            for i in $(seq 1 100); do grep -q "watch at" livepush.log && break; sleep 0.1; done
            for i in $(seq 1 100); do [ -e relay-up ] && break; sleep 0.1; done
            timeout -k 5 40 '\(try PythonPeers.python())' '\(PythonPeers.scripts)/chromium_loss.py' http://127.0.0.1:8080/player.html \
              \(Self.whepPort) \(Self.relayPort) 5 20 > client.json 2> client.err
            kill -INT $LIVEPUSH; wait $LIVEPUSH
            """, timeoutSeconds: 80)
        let relay = try namespace.enter {
            try LossyUDPRelay(port: Self.relayPort, targetPort: Self.whepPort, lossPercent: 0, lossy: [], deadlineSeconds: 70,
                              bottleneck: .init(steps: [.init(atSeconds: 0, bitsPerSecond: Self.linkBitsPerSecond)], queueLimitSeconds: 0.3))
        }
        defer { relay.stop() }
        try #require(FileManager.default.createFile(atPath: namespace.directory.file("relay-up"), contents: nil), "could not write the relay-up signal")
        namespace.wait(timeoutSeconds: 90)

        let log = namespace.contents(of: "livepush.log")
        let logs = "livepush: \(log.suffix(1500))\nchromium: \(namespace.contents(of: "client.err").suffix(1500))"
        let result = try #require(PythonPeers.result(namespace.contents(of: "client.json")), "the page printed no JSON\n\(logs)")
        #expect(result["rewrittenCandidates"] as? Int ?? 0 >= 1, "the answer's candidate was not pointed at the relay: \(result)")
        let samples = result["samples"] as? [[String: Any]] ?? []
        try #require(samples.count == 2, "no video decoded: \(result)\n\(logs)")
        func decoded(_ sample: [String: Any]) -> Double { (sample["framesDecoded"] as? NSNumber)?.doubleValue ?? 0 }
        // 5 → 20 s after the first frame: still decoding (half the frame rate at least, on a 2-core machine).
        #expect(decoded(samples[1]) - decoded(samples[0]) >= 15 * 15, "decoding stalled: \(samples)")

        let report = try #require(log.split(separator: "\n").last { $0.contains("transport-cc feedback") }, "no run report: \(logs)")
        print("transport-cc → encoder bitrate: \(report); decoded 5→20 s: \(Int(decoded(samples[1]) - decoded(samples[0]))); relay \(relay.fromTarget)")
        #expect(report.contains("(transport-cc)"), "the estimate came from transport-cc: \(report)")
        let lowest = try #require(WHEPTransportCCTests.number(after: "(lowest ", in: report), "the encoder was never lowered: \(report)")
        #expect(lowest < Self.linkBitsPerSecond && lowest >= 300_000, "the encoder's lowest bitrate under a 1 Mbit/s link: \(report)")
        // ... and the shared encoder really ran at it (the pipeline's summary, through its bitrate arbiter).
        #expect(LivepushEncoderBitrate.lowestKilobits(in: log).map { $0 * 1000 <= lowest + 999 } == true, "\(log.suffix(1500))")
    }
}
