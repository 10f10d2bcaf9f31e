import Foundation
import Testing
import TestSupport

/// What WHEP viewers get beside H.264: Opus audio, RTX, the video orientation extension, and REMB
/// reaching the bitrate policy, checked with headless Chromium and aiortc (in a loopback-only
/// namespace, through ``WHEPPeerTests/watch(client:streamArguments:seconds:)``).
@Suite(.serialized) struct WHEPMediaPeerTests {
    static let short = ["--source", "testpattern", "--size", "1280x720", "--fps", "30", "--profile", "baseline", "--keyint", "30"]

    /// livepush's closing `whep:` report line.
    static func report(_ log: String) -> String {
        log.split(separator: "\n").last { $0.contains("whep:") }.map(String.init) ?? ""
    }

    /// The integer right before `label` in the report (e.g. "1234 audio packets").
    static func count(_ label: String, in report: String) -> Int? {
        guard let range = report.range(of: " " + label) else { return nil }
        return Int(report[..<range.lowerBound].split(separator: " ").last ?? "")
    }

    /// One Chromium session (its start-up is the slow part) for what browsers get: Opus, RTX,
    /// the rotation as metadata, and REMB reaching the bitrate policy.
    @Test
    func chromiumPlaysOpusAndShowsTheRotatedPictureUpright() throws {
        try ExternalTool.require("chromium"); try ExternalTool.require("chromedriver")
        let (stats, log) = try WHEPPeerTests().watch(client: "\"$PY\" \"$PEERS/chromium_whep.py\" http://127.0.0.1:8080/player.html 60 150",
                                                     streamArguments: Self.short + ["--audio", "tone", "--rotation", "90"], seconds: 75)
        #expect(stats["state"] as? String == "connected", "\(stats)\n\(log.suffix(1500))")
        #expect((stats["framesDecoded"] as? Int ?? 0) >= 150, "\(stats)")
        // 20 ms Opus packets: 100 is two seconds of audio.
        #expect((stats["audioPacketsReceived"] as? Int ?? 0) >= 100, "\(stats)")
        #expect((stats["audioSamplesReceived"] as? Int ?? 0) >= 96_000, "decoded samples: \(stats)")
        // Decoded, not made up: every packet that came was decoded into what the page played (20 ms,
        // 960 samples each; NetEq's time-stretching aside). What NetEq concealed while packets came
        // late, as they do on a busy machine, is measured (printed), not asserted.
        let audio = stats["audioInbound"] as? [String: Any] ?? [:]
        func figure(_ key: String) -> Int { audio[key] as? Int ?? 0 }
        let played = figure("totalSamplesReceived") - figure("concealedSamples")
        let decoded = played + figure("removedSamplesForAcceleration") - figure("insertedSamplesForDeceleration")
        #expect(figure("packetsReceived") >= 100 && Double(decoded) >= 0.9 * Double(figure("packetsReceived") * 960),
                "samples decoded from \(figure("packetsReceived")) packets: \(audio)")
        print("WHEPMediaPeerTests: Opus \(figure("packetsReceived")) packets, \(figure("totalSamplesReceived")) samples played, "
              + "\(figure("concealedSamples")) concealed in \(figure("concealmentEvents")) events: \(audio)")
        #expect(stats["rtxSsrc"] is Int, "Chromium took the RTX stream of the answer: \(stats)")
        // The decoder sees the frames as encoded (landscape: livepush did not turn the pixels) ...
        #expect(stats["width"] as? Int == 1280 && stats["height"] as? Int == 720, "\(stats)")
        // ... and the page shows them turned by the extension's 90°.
        #expect(stats["videoWidth"] as? Int == 720 && stats["videoHeight"] as? Int == 1280, "\(stats)")
        let report = Self.report(log)
        #expect(report.contains("frame rotation 90°"), "\(report)")
        #expect((Self.count("audio packets", in: report) ?? 0) >= 100, "\(report)")
        // Chromium negotiates transport-cc: the viewer's send-side estimate (not REMB) reaches the bitrate policy.
        let estimates = report.range(of: "REMB ").map { Int(report[$0.upperBound...].prefix { $0.isNumber }) ?? 0 } ?? 0
        #expect(estimates > 0 && report.contains("(transport-cc)"), "the viewer's estimates reached the bitrate policy: \(report)")
        // The estimate starts at 1.3 × the configured 2.5 Mbit/s, so unlike Chromium's REMB ramp it does not pull
        // the encoder down at the start; when it did lower it, the shared encoder really ran at that bitrate.
        let lowest = report.range(of: "(lowest ").map { Int(report[$0.upperBound...].prefix { $0.isNumber }) ?? 0 } ?? 0
        if lowest > 0 {
            #expect((300_000..<2_500_000).contains(lowest), "the encoder's lowest bitrate: \(report)")
            #expect(LivepushEncoderBitrate.lowestKilobits(in: log).map { $0 * 1000 <= lowest + 999 } == true, "\(log.suffix(1500))")
        }
    }

    @Test
    func aiortcDecodesTheFourHundredFortyHertzTone() throws {
        let (result, log) = try WHEPPeerTests().watch(client: "\"$PY\" \"$PEERS/aiortc_whep_media.py\" --audio http://127.0.0.1:8080/whep 90 25",
                                                      streamArguments: Self.short + ["--audio", "tone"], seconds: 30)
        #expect(result["postStatus"] as? Int == 201, "\(result)\n\(log.suffix(1500))")
        #expect(result["answerHasOpus"] as? Bool == true && result["answerHasRTX"] as? Bool == true, "\(result)")
        #expect(result["frames"] as? Int == 90, "\(result)")
        #expect((result["audioFrames"] as? Int ?? 0) >= 90, "two seconds of 20 ms frames: \(result)")
        #expect(result["audioSampleRate"] as? Int == 48_000, "\(result)")
        let frequency = result["audioFrequencyHz"] as? Double ?? 0
        #expect(abs(frequency - 440) < 3, "the tone's frequency: \(result)")
        #expect((result["audioRms"] as? Double ?? 0) > 1000, "a 0.3 full-scale tone (≈ 6950 RMS in 16 bits): \(result)")
    }

    /// A `--rotation 90` stream with only WHEP outputs passes the rotation through to Chromium;
    /// then aiortc joins without the orientation extension: the encoder turns the pixels from the
    /// next frame, aiortc decodes upright 720x1280 pictures from its first one (codes read after
    /// turning them back, in order), and Chromium, still watching, decodes 720x1280 and is told 0°
    /// (the page shows 720x1280; 90° would show them sideways, 1280x720).
    @Test
    func aViewerWithoutTheOrientationExtensionMakesTheEncoderTurnThePixelsForEveryone() throws {
        try ExternalTool.require("chromium"); try ExternalTool.require("chromedriver")
        let client = #"""
            WHEP_FIRST_FRAME_FILE=chromium-up WHEP_STOP_FILE=chromium-stop WHEP_SIZE_FILE=chromium-size "$PY" "$PEERS/chromium_whep.py" http://127.0.0.1:8080/player.html 100 100000 > chromium.json 2> chromium.err &
            CH=$!; for i in $(seq 1 600); do [ -e chromium-up ] && break; sleep 0.1; done;
            "$PY" "$PEERS/aiortc_whep_media.py" --turned 90 http://127.0.0.1:8080/whep 60 40 > aiortc.json;
            for i in $(seq 1 300); do grep -q "^720x1280 shown 720x1280" chromium-size && break; sleep 0.1; done; touch chromium-stop; wait $CH;
            printf "{\"chromium\": %s, \"aiortc\": %s}\n" "$(tail -n 1 chromium.json)" "$(tail -n 1 aiortc.json)"
            """#
        let (result, log) = try WHEPPeerTests().watch(client: client, streamArguments: Self.short + ["--rotation", "90"], seconds: 120)
        let aiortc = result["aiortc"] as? [String: Any] ?? [:], chromium = result["chromium"] as? [String: Any] ?? [:]
        #expect((chromium["framesDecoded"] as? Int ?? 0) > 0, "Chromium was watching before aiortc joined: \(chromium)\n\(log.suffix(1500))")
        #expect(aiortc["postStatus"] as? Int == 201, "\(aiortc)\n\(log.suffix(1500))")
        #expect(aiortc["frames"] as? Int == 60, "\(aiortc)")
        #expect(aiortc["sizes"] as? [String] == ["720x1280"], "upright from the first frame: \(aiortc)")
        #expect((aiortc["codes"] as? Int ?? 0) >= 55 && aiortc["inOrder"] as? Bool == true, "turned clockwise, in order: \(aiortc)")
        #expect(chromium["state"] as? String == "connected", "\(chromium)")
        #expect(chromium["width"] as? Int == 720 && chromium["height"] as? Int == 1280, "decoded as turned: \(chromium)")
        #expect(chromium["videoWidth"] as? Int == 720 && chromium["videoHeight"] as? Int == 1280, "shown upright: \(chromium)")
        #expect(Self.report(log).contains("frame rotation 0°"), "\(Self.report(log))")
    }

    @Test
    func withAnOutputThatNeedsUprightPixelsTheEncoderTurnsThemForEveryViewer() throws {
        let directory = try TemporaryDirectory()
        let (result, log) = try WHEPPeerTests().watch(client: "sleep 2; \"$PY\" \"$PEERS/aiortc_whep_media.py\" http://127.0.0.1:8080/whep 30 40",
                                                      streamArguments: Self.short + ["--rotation", "90", "--record", directory.file("out.mp4")],
                                                      seconds: 50)
        #expect(result["postStatus"] as? Int == 201, "\(result)\n\(log.suffix(1500))")
        #expect(result["width"] as? Int == 720 && result["height"] as? Int == 1280, "physically turned: \(result)")
        #expect(Self.report(log).contains("frame rotation 0°"), "\(Self.report(log))")
    }

    /// 5 % of livepush's RTP lost on the way (a ``LossyUDPRelay`` in the namespace, the answer's
    /// candidate pointed at it): aiortc NACKs, the repairs come on the RTX stream it offered, and
    /// every frame decodes in capture order.
    @Test
    func aiortcRepairsLossFromTheRTXStream() throws {
        let (whepPort, relayPort) = (40_010, 40_012)
        let namespace = try LoopbackNamespace(script: """
            set -u
            '\(try LivepushBinary.path())' stream \(Self.short.joined(separator: " ")) --web 127.0.0.1:8080 --adaptive-bitrate --webrtc-port \(whepPort) \
              --duration 90 > livepush.log 2>&1 &
            LIVEPUSH=$!
            for i in $(seq 1 100); do grep -q "watch at" livepush.log && [ -e relay-up ] && break; sleep 0.1; done
            timeout -k 5 50 '\(try PythonPeers.python())' '\(PythonPeers.scripts)/aiortc_whep_media.py' --via \(whepPort):\(relayPort) \
              http://127.0.0.1:8080/whep 150 45 > client.json 2> client.err
            kill -INT $LIVEPUSH; wait $LIVEPUSH
            """, timeoutSeconds: 100)
        let relay = try namespace.enter {
            try LossyUDPRelay(port: relayPort, targetPort: whepPort, lossPercent: 5, lossy: [.fromTarget], deadlineSeconds: 110)
        }
        defer { relay.stop() }
        try #require(FileManager.default.createFile(atPath: namespace.directory.file("relay-up"), contents: nil), "could not write the relay-up signal")
        namespace.wait(timeoutSeconds: 110)
        let log = namespace.contents(of: "livepush.log")
        let result = try #require(PythonPeers.result(namespace.contents(of: "client.json")),
                                  "no JSON: \(namespace.contents(of: "client.err").suffix(1500))\n\(log.suffix(1500))")
        #expect(result["viaRelay"] as? Bool == true && result["answerHasRTX"] as? Bool == true, "\(result)")
        #expect(relay.fromTarget.dropped > 0, "the relay lost nothing")
        #expect(result["frames"] as? Int == 150 && result["inOrder"] as? Bool == true, "\(result)")
        #expect((result["codes"] as? Int ?? 0) >= 140, "frames decoded intact: \(result)")
        let report = Self.report(log)
        let onRTX = report.range(of: "(").map { Int(report[$0.upperBound...].prefix { $0.isNumber }) ?? 0 } ?? 0
        #expect(onRTX > 0, "retransmissions on the RTX stream: \(report)")
        #expect(report.contains("retransmitted (\(onRTX) on RTX)"), "all of them on RTX: \(report)")
    }
}
