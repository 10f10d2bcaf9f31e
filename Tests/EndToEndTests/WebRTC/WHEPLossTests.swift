import Foundation
import Testing
import TestSupport

/// Headless Chromium watching `livepush stream --web` through a UDP relay that loses 5 % of the
/// RTP and RTCP each way, and then all of livepush's media for 3.5 s (a link going down). NACK
/// retransmission (RTX when the answer takes Chromium's offer of it; plain retransmission on the
/// media SSRC when the page leaves RTX out of its offer) must keep the picture decoding
/// at nearly the full rate through the steady loss, and the outage must end in a key frame
/// (keyframes are otherwise 30 s apart). Chromium asks for one once, about 3 s into the outage; that
/// key frame is lost with the link and arrives through NACK repair after it. The relay loses every
/// 20th RTCP packet too, and Chromium's transport-cc feedback (about 15 a second) puts that one
/// request at a varying index, now and then a lost one: then livepush's own request, made when the
/// transport-cc feedback after the outage shows a second of packets all lost, brings the key frame.
/// All in one loopback-only namespace; the relay's socket joins it from this process.
@Suite(.serialized) struct WHEPLossTests {
    static let whepPort = 40_000
    static let relayPort = 40_002
    static let fps = 30
    /// The page's timeline (chromium_loss.py): seconds after its first decoded frame, 2→10 is
    /// steady loss, and at 11 it asks for the outage; the test starts it then (so it can never fall
    /// in the steady window, however late the first frame), and the page samples 2.5 and 6.5 s after
    /// the link is back (recovered → end).
    static let (steadyFrom, steadyTo, outageAt, recoveredAfter, endAfter) = (2.0, 10.0, 11.0, 2.5, 6.5)
    static let outageSeconds = 3.5

    typealias Sample = [String: Any]

    static func number(_ sample: Sample, _ key: String) -> Double { (sample[key] as? NSNumber)?.doubleValue ?? 0 }

    @Test(arguments: [false, true])
    func chromiumDecodesThroughLossAndAnOutageGetsAKeyFrame(withoutRTX: Bool) throws {
        for peer in ["unshare", "chromium", "chromedriver"] { try ExternalTool.require(peer) }
        let namespace = try LoopbackNamespace(script: """
            set -u
            '\(try LivepushBinary.path())' stream --source testpattern --size 640x360 --fps \(Self.fps) --bitrate 1M \
              --profile baseline --keyint 30 --web 127.0.0.1:8080 --adaptive-bitrate --webrtc-port \(Self.whepPort) --duration 100 > livepush.log 2>&1 &
            LIVEPUSH=$!
            for i in $(seq 1 100); do grep -q "watch at" livepush.log && break; sleep 0.1; done
            for i in $(seq 1 100); do [ -e relay-up ] && break; sleep 0.1; done
            timeout -k 5 75 '\(try PythonPeers.python())' '\(PythonPeers.scripts)/chromium_loss.py' \(withoutRTX ? "--no-rtx" : "") \
              http://127.0.0.1:8080/player.html \(Self.whepPort) \(Self.relayPort) outage-now outage-over \
              \(Self.steadyFrom) \(Self.steadyTo) \(Self.outageAt) \(Self.recoveredAfter) \(Self.endAfter) > client.json 2> client.err
            kill -INT $LIVEPUSH; wait $LIVEPUSH
            """, timeoutSeconds: 110)
        let relay = try namespace.enter {
            try LossyUDPRelay(port: Self.relayPort, targetPort: Self.whepPort, lossPercent: 5, lossy: [.toTarget, .fromTarget],
                              outage: .init(direction: .fromTarget, startSeconds: .infinity, durationSeconds: Self.outageSeconds),
                              deadlineSeconds: 110)
        }
        defer { relay.stop() }
        try #require(FileManager.default.createFile(atPath: namespace.directory.file("relay-up"), contents: nil), "could not write the relay-up signal")
        // The page asks for the outage on its own timeline; the relay ends it after its length.
        let asked = namespace.directory.file("outage-now")
        var outageStarted = false
        let askDeadline = Date().addingTimeInterval(80)
        while Date() < askDeadline, namespace.wait(timeoutSeconds: 0.05) == nil {
            guard FileManager.default.fileExists(atPath: asked) else { continue }
            relay.startOutage()
            outageStarted = true
            Thread.sleep(forTimeInterval: Self.outageSeconds)
            try #require(FileManager.default.createFile(atPath: namespace.directory.file("outage-over"), contents: nil), "could not write the outage-over signal")
            break
        }
        namespace.wait(timeoutSeconds: 100)

        let logs = "livepush: \(namespace.contents(of: "livepush.log").suffix(1500))\nchromium: \(namespace.contents(of: "client.err").suffix(1500))"
        let result = try #require(PythonPeers.result(namespace.contents(of: "client.json")), "the page printed no JSON\n\(logs)")
        #expect(result["rewrittenCandidates"] as? Int ?? 0 >= 1, "the answer's candidate was not pointed at the relay: \(result)")
        if withoutRTX { #expect(result["rtxNegotiated"] as? Bool == false, "RTX left out of the offer: \(result)") }
        let samples = result["samples"] as? [Sample] ?? []
        try #require(samples.count == 4, "no video decoded: \(result)\n\(logs)")
        #expect(outageStarted, "the page never asked for the outage: \(result)")
        let (steadyStart, steadyEnd, recovered, end) = (samples[0], samples[1], samples[2], samples[3])
        func delta(_ key: String, _ from: Sample, _ to: Sample) -> Double { Self.number(to, key) - Self.number(from, key) }
        let report = "relay to livepush \(relay.toTarget), from livepush \(relay.fromTarget); RTX \(result["rtxNegotiated"] ?? "?"); \(samples)"

        // Steady 5 % loss: Chromium NACKs, and the repairs keep nearly every frame decodable.
        #expect(relay.fromTarget.dropped > 0 && relay.toTarget.dropped > 0, "\(report)")
        #expect(delta("nackCount", steadyStart, steadyEnd) > 0, "no NACK under loss: \(report)")
        let steadySeconds = Self.steadyTo - Self.steadyFrom
        #expect(delta("framesDecoded", steadyStart, steadyEnd) >= 0.8 * Double(Self.fps) * steadySeconds, "decoding stalled under loss: \(report)")
        #expect(delta("freezeCount", steadyStart, steadyEnd) <= 2, "\(report)")
        #expect(delta("pliCount", steadyStart, steadyEnd) <= 1, "loss was not repaired (key frames requested): \(report)")
        #expect(end["packetsLost"] is NSNumber, "packetsLost reported: \(report)")

        // The outage: Chromium asks for a key frame and gets one, and decoding resumes.
        #expect(delta("pliCount", steadyEnd, end) + delta("firCount", steadyEnd, end) > 0, "no key-frame request after the outage: \(report)")
        #expect(delta("keyFramesDecoded", steadyEnd, end) > 0, "no key frame answered the request: \(report)")
        let recoveredSeconds = Self.endAfter - Self.recoveredAfter
        #expect(delta("framesDecoded", recovered, end) >= 0.8 * Double(Self.fps) * recoveredSeconds, "decoding did not resume: \(report)")

        let page = result["page"] as? [String: Any] ?? [:]
        #expect(WHEPPeerTests.codesInOrder(page) && (page["frameCodesRead"] as? Int ?? 0) > 300, "\(page)")
    }
}
