import Codec
import Foundation
import Output
import Testing
import TestSupport
import WebRTCTransport

/// Issue #16's bandwidth step, end to end through `livepush serve` as a user runs it: one camera
/// (the busy test pattern, 1280x720@30) with renditions 720p (2.5 Mbit/s) and 360p (640x360,
/// 600 kbit/s), each its own libx264 encode (ultrafast, baseline), served to WHEP viewers and pushed
/// (720p) to a local nginx-rtmp that records it. Two headless Chromium viewers watch on the player
/// page: one through a relay whose link steps 5 → 1 → 5 Mbit/s (token bucket, 300 ms drop-tail
/// queue, 20 ms each way), the other directly. The limited viewer must keep decoding (frame codes
/// continue in order, decoding never stops), settle on 360p while the link is narrow and come back to
/// 720p; the direct viewer must stay on 720p while its own estimate holds it (see the assertions),
/// and the RTMP output throughout (the recording: every
/// frame 1280x720, codes in order, every frame the encoder made through the narrow window at the full
/// bit rate), and the viewers must never change either rendition's encoder. The test sees serve only
/// as a user would, through `/api/status` every half second, and steps the link when the viewers have
/// reacted, not at fixed times: narrow once both have watched 720p for a while, wide again once the
/// limited viewer has settled on 360p and a probe of the narrow link has failed. The time to settle
/// and glass-to-glass latency through the drop are printed for BENCHMARKS.md (measured, not asserted).
///
/// Everything runs in one loopback-only namespace: serve, nginx and both browsers are started there,
/// and the relay's socket and the status requests join it (``LoopbackNamespace/enter(_:)``), so the
/// fixed ports below are free. The config sets no `bufsize`, so each encoder keeps its default
/// VBV of one second of its bitrate, as a user's would (the in-process version set half a second).
@Suite(.serialized) struct WHEPRenditionSwitchingTests {
    static let top = RenditionDescription(name: "720p", width: 1280, height: 720, framesPerSecond: 30, bitrateBitsPerSecond: 2_500_000)
    static let low = RenditionDescription(name: "360p", width: 640, height: 360, framesPerSecond: 30, bitrateBitsPerSecond: 600_000)
    static let (wideBitsPerSecond, narrowBitsPerSecond) = (5_000_000, 1_000_000)
    /// Seconds of 720p (livepush's count) both viewers watch before the link narrows.
    static let secondsOnTopBeforeDrop = 8.0
    /// Bounds on the viewers' runs and on each step's wait: they end a run that hangs, nothing more.
    static let watchSeconds = 200.0
    static let stepTimeoutSeconds = 60.0
    /// In the namespace, where nothing else listens.
    static let whepPort = 40_000, relayPort = 40_002

    static func config(rtmpURL: String) -> String {
        ServeYAML.config([ServeYAML.camera(
            "cam0", source: "testpattern:busy", size: "\(top.width)x\(top.height)", fps: top.framesPerSecond,
            encoder: "{name: libx264, preset: ultrafast, profile: baseline, keyint: 30}",
            keys: ["renditions:", "  - {name: \(top.name), bitrate: \(top.bitrateBitsPerSecond / 1000)k}",
                   "  - {name: \(low.name), size: \(low.width)x\(low.height), bitrate: \(low.bitrateBitsPerSecond / 1000)k}"],
            outputs: ["whep: {udp_port: \(whepPort)}", "rtmp: {url: '\(rtmpURL)', rendition: \(top.name)}"])])
    }

    @Test
    func aViewerFollowsItsNarrowingLinkWhileTheOtherViewerAndTheRTMPOutputStayOnTop() throws {
        for peer in ["unshare", "nginx", "chromium", "chromedriver"] { try ExternalTool.require(peer) }
        let python = try PythonPeers.python()
        // The namespace lasts until the test touches `done` (bounded by the timeout); everything runs in it.
        let limit = Int(Self.watchSeconds) + 150
        let namespace = try LoopbackNamespace(script: "for i in $(seq 1 \(limit * 5)); do [ -e done ] && break; sleep 0.2; done",
                                              timeoutSeconds: limit)
        defer {
            _ = FileManager.default.createFile(atPath: namespace.directory.file("done"), contents: nil)
            namespace.wait(timeoutSeconds: 5)
        }
        let nginx = try namespace.enter { try NginxRTMPServer() }
        let yaml = Self.config(rtmpURL: nginx.url(key: "cam0"))
        let serve = try namespace.enter(timeoutSeconds: 45) { try ServeUnderTest(yaml: yaml) }
        let statusURL = "\(serve.baseURL)/api/status"
        let page = "\(serve.baseURL)/player.html?whep=/whep/cam0"

        let relay = try namespace.enter {
            try LossyUDPRelay(
                port: Self.relayPort, targetPort: Self.whepPort, lossPercent: 0, lossy: [], deadlineSeconds: Self.watchSeconds + 60, delaySeconds: 0.02,
                bottleneck: .init(steps: [.init(atSeconds: 0, bitsPerSecond: Self.wideBitsPerSecond)], queueLimitSeconds: 0.3))
        }
        defer { relay.stop() }
        let (stopFile, widthFile) = (namespace.directory.file("viewers-stop"), namespace.directory.file("limited-width"))
        let viewer = ["-k", "5", "\(Int(Self.watchSeconds) + 30)", python, "\(PythonPeers.scripts)/chromium_bandwidth.py", page, "\(Self.watchSeconds)"]
        let limited = try namespace.enter {
            try BackgroundProcess("timeout", viewer + ["\(Self.whepPort)", "\(Self.relayPort)"],
                                  environment: ["WHEP_STOP_FILE": stopFile, "WHEP_WIDTH_FILE": widthFile])
        }
        var direct: BackgroundProcess?

        // The schedule: each step waits (bounded) until /api/status, or the limited page, shows the viewers reacted.
        var samples = StatusSamples()
        func waitUntil(_ condition: ([String: WebRTCViewerLink]) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(Self.stepTimeoutSeconds)
            while limited.isRunning, direct?.isRunning ?? true, Date() < deadline {
                let body = try? namespace.enter { try Curl.body([statusURL]) }
                samples.add(body, at: Date(), timelineStart: relay.bottleneckStartedAt)
                if let camera = samples.cameras.last?.camera, condition(StatusSamples.viewerLinks(camera)) { return true }
                Thread.sleep(forTimeInterval: 0.5)
            }
            return false
        }
        // The limited viewer joins first, so its session id is known before the direct one joins:
        // each viewer is then judged by its own id, never by what it did.
        var limitedID: String?
        if waitUntil({ links in
            limitedID = links.count == 1 ? links.keys.first : nil
            return limitedID != nil
        }) {
            direct = try namespace.enter { try BackgroundProcess("timeout", viewer, environment: ["WHEP_STOP_FILE": stopFile]) }
        }
        var steps: [String] = []
        var dropAt = Date.distantFuture, recoverAt = Date.distantFuture
        if direct != nil,
           waitUntil({ $0.count == 2 && $0.values.allSatisfy { $0.rendition == 0 && ($0.secondsOnRendition.first ?? 0) >= Self.secondsOnTopBeforeDrop } }) {
            steps.append("both on top")
            relay.setBottleneckRate(bitsPerSecond: Self.narrowBitsPerSecond)
            dropAt = Date()
            if waitUntil({ $0[limitedID ?? ""]?.rendition == 1 }) {
                steps.append("limited on 360p")
                // The probe of the narrow link fails before the link widens (the next one then holds 720p).
                if waitUntil({ ($0[limitedID ?? ""]?.probesFailed ?? 0) >= 1 }) {
                    steps.append("a probe failed")
                }
            }
            relay.setBottleneckRate(bitsPerSecond: Self.wideBitsPerSecond)
            recoverAt = Date()
            if waitUntil({ $0[limitedID ?? ""]?.rendition == 0 }) {
                steps.append("limited back on 720p")
                // ... and the page shows it.
                let shown = Date().addingTimeInterval(Self.stepTimeoutSeconds)
                while limited.isRunning, Date() < shown,
                      (try? String(contentsOfFile: widthFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) != "\(Self.top.width)" {
                    Thread.sleep(forTimeInterval: 0.1)
                }
            }
        }
        _ = waitUntil { _ in true }
        _ = FileManager.default.createFile(atPath: stopFile, contents: nil)
        _ = limited.wait(timeoutSeconds: 30)
        _ = direct?.wait(timeoutSeconds: 30)
        let serveExit = serve.stop()
        nginx.waitForRecordingsToSettle()
        relay.stop()

        let logs = "limited: \(limited.errorOutput.suffix(1500))\ndirect: \((direct?.errorOutput ?? "never started").suffix(1500))\nserve: \(serve.process.errorOutput.suffix(1500))"
        let limitedResult = try #require(PythonPeers.result(limited.output), "no JSON from the limited viewer\n\(logs)")
        let directResult = try #require(direct.flatMap { PythonPeers.result($0.output) }, "no JSON from the direct viewer\n\(logs)")
        let limitedKey = try #require(limitedID, "the limited viewer never showed in /api/status\n\(logs)")
        let start = try #require(relay.bottleneckStartedAt, "no media went through the relay\n\(logs)")
        let camera = try #require(samples.cameras.last?.camera, "/api/status never answered\n\(logs)")
        let recording = try #require(nginx.recordings.first, "nginx recorded nothing: \(nginx.recordings)\n\(logs)")
        let received = try RecordedVideo(path: recording, width: Self.top.width)

        let dropMillis = dropAt.timeIntervalSince1970 * 1000, recoverMillis = recoverAt.timeIntervalSince1970 * 1000
        let watched = Watched(limitedResult), other = Watched(directResult)
        let (top, low) = (Self.top.width, Self.low.width)
        let links = samples.lastViewerLinks(count: 2)
        let narrow = received.window(fromMillis: dropMillis, toMillis: recoverMillis)
        // What the 720p encoder made while the link was narrow, by the status answers inside that window.
        let inside = samples.cameras.filter { $0.at >= dropAt && $0.at <= recoverAt }.compactMap { $0.camera.renditions.first?.framesEncoded }
        let encodedWhileNarrow = (inside.last ?? 0) - (inside.first ?? 0)
        let rtmp = String(format: "%d frames %@, codes in order %@, narrow window %d frames (%d encoded) at %.0f kbit/s",
                          received.frames.count, received.sizes.sorted().joined(separator: ","), "\(received.codesInOrder)", narrow.frames,
                          encodedWhileNarrow, narrow.bitsPerSecond / 1000)
        let summary = "steps: \(steps.joined(separator: " → ")), narrow \(String(format: "%.1f", recoverAt.timeIntervalSince(dropAt))) s from "
            + "\(String(format: "%.1f", dropAt.timeIntervalSince(start))) s; "
            + "limited: \(watched.summary(dropMillis: dropMillis, recoverMillis: recoverMillis, low: low, top: top)); "
            + "direct: \(other.summary(dropMillis: dropMillis, recoverMillis: recoverMillis, low: low, top: top)); rtmp: \(rtmp); "
            + "links \(links); relay \(relay.fromTarget); \(samples.cameras.count) status answers (\(samples.unreadable) unreadable); "
            + "timeline \(samples.timeline.joined(separator: " "))"
        print("WHEPRenditionSwitchingTests: \(summary)")
        #expect(steps.count == 4, "the schedule did not run to its end: \(summary)\n\(logs)")
        #expect(serveExit == 0, "serve exited \(String(describing: serveExit)): \(logs)")
        #expect(limitedResult["rewrittenCandidates"] as? Int ?? 0 >= 1, "the limited viewer bypassed the relay: \(summary)")
        #expect(relay.fromTarget.droppedAtBottleneck > 0, "the bottleneck never filled: \(summary)")

        // Decoding goes on: codes read in order, from before the drop to after the recovery. A viewer
        // still on 720p when the link narrows freezes until the 360p key frame gets through the full
        // queue (0.8–2.2 s measured; the summary prints it for BENCHMARKS.md); 5 s tells a freeze from
        // decoding that stopped. A repeat (the same capture instant read twice) can only come from a
        // switch; a misread code and a stale read by the page (see Watched) are left out, and there must be few.
        let (codesRead, outOfOrder, longestGap) = (watched.codes.count, watched.orderErrors, watched.longestGapMillis)
        let spansTheSteps = (watched.codes.first?.millis ?? .infinity) < dropMillis && (watched.codes.last?.millis ?? 0) > recoverMillis
        #expect(outOfOrder == 0 && spansTheSteps, "\(summary)")
        let switches = links.values.map(\.renditionSwitches).max() ?? 0
        #expect(watched.repeats <= switches && watched.misreads + watched.staleReads <= codesRead / 100, "\(summary)")
        #expect(longestGap < 5000, "decoding stopped: \(summary)")
        // Settles on the lower rendition after the drop and stays there while the link is narrow. How
        // fast (the issue asks 3 s) and the glass-to-glass p95 through the drop (400 ms) are measured,
        // not asserted: the summary above prints them, and BENCHMARKS.md keeps them.
        let settle = watched.secondsToSettle(onWidth: low, after: dropMillis, until: recoverMillis)
        #expect(settle != nil, "never settled on the lower rendition while the link was narrow: \(summary)")
        // Back on top once the link is wide again.
        let cameBack = watched.widths(after: recoverMillis).contains(top)
        #expect(cameBack, "did not come back up: \(summary)")
        // The direct viewer's link is never narrowed, so the limited viewer's steps must not move it.
        // Its own estimate can still fall with nothing on its link: on a loaded machine Chromium reads
        // its packets late, and a delay-based estimator rightly sees that as queueing (seen here at load
        // 11–15: 5000k → 2217k → 878k with no loss, 6 s and 39 s after the drop). The test does not
        // control that, so it judges the viewer by what it does control and can see: the viewer's own
        // estimate in every status answer. While that never fell below the top rendition's down
        // threshold, the viewer is never touched: always 720p, nothing repeated, no probe, nothing
        // refused at its pacer. Where it did fall, the viewer may leave the top only after its own
        // estimate fell, and still decodes in order.
        let linksByID = samples.cameras.map { StatusSamples.viewerLinks($0.camera) }
        let directKey = try #require(links.keys.first { $0 != limitedKey }, "no second viewer in \(links)")
        let downThreshold = RenditionSwitchPolicy.Settings().downFactor * Double(Self.top.bitrateBitsPerSecond)
        let directEstimates = linksByID.map { $0[directKey]?.estimateBitsPerSecond }
        let directFellBy = directEstimates.firstIndex { ($0 ?? .max) < Int(downThreshold) }
        let directLeftTopAt = linksByID.firstIndex { ($0[directKey]?.rendition ?? 0) != 0 }
        let directLink = links[directKey], limitedLink = links[limitedKey]
        let (otherOutOfOrder, otherDecoded) = (other.orderErrors, (directResult["inbound"] as? [String: Any])?["framesDecoded"] as? Int ?? 0)
        let otherSpan = (other.codes.last?.number ?? 0) - (other.codes.first?.number ?? 0) + 1
        let livepushDropped = camera.droppedFrames.capture + (camera.renditions.first?.droppedFrames ?? 0)
            + (camera.outputs.first { $0.kind == "whep" }?.droppedFrames ?? 0)
        let otherWidths = other.widths(after: 0)
        if let fell = directFellBy {
            print("WHEPRenditionSwitchingTests: the direct viewer's own estimate fell below \(Int(downThreshold) / 1000)k "
                  + "(lowest \((directEstimates.compactMap { $0 }.min() ?? 0) / 1000)k) in status answer \(fell) of \(linksByID.count), with its link untouched")
            #expect(directLeftTopAt.map { $0 >= fell } ?? true, "the direct viewer left 720p before its own estimate fell: \(summary)")
            #expect(!otherWidths.isEmpty && otherWidths.first == top && other.repeats <= (directLink?.renditionSwitches ?? 0), "\(summary)")
        } else {
            #expect(!otherWidths.isEmpty && otherWidths.allSatisfy { $0 == top } && other.repeats == 0, "\(summary)")
            #expect(directLeftTopAt == nil && directLink?.renditionSwitches == 0, "\(links)")
            // It never needed a probe (it never left the top) and its pacer refused nothing.
            #expect(directLink?.probesStarted == 0 && directLink?.framesDroppedAtPacer == 0, "\(links)")
        }
        // Either way it decodes in order, and every frame the 720p encode made over its watch
        // (frame numbers count capture slots; livepush's own drops, at capture, its encoder and the
        // hand-off, are no viewer's).
        #expect(otherOutOfOrder == 0 && other.misreads + other.staleReads <= other.codes.count / 100
                && Double(otherDecoded) >= 0.95 * Double(otherSpan - livepushDropped),
                "direct viewer decoded \(otherDecoded) frames over \(otherSpan) captured, \(livepushDropped) dropped by livepush: \(summary)")
        #expect((limitedLink?.renditionSwitches ?? 0) >= 2 && limitedLink?.estimateSource == "transport-cc", "\(links)")
        // The limited viewer's way back up was probed (RTX padding), not guessed.
        #expect((limitedLink?.probesStarted ?? 0) >= 1, "\(links)")
        // The probe while the link is still narrow fails and is counted (the one after the recovery then holds 720p).
        #expect((limitedLink?.probesFailed ?? 0) >= 1 && (limitedLink?.probesStarted ?? 0) > (limitedLink?.probesFailed ?? 0), "\(links)")

        // The RTMP output stays on 720p: status names its rendition in every answer, and nginx received
        // every frame at 1280x720, in order, every frame the encoder made and the full bit rate while the viewer's link was narrow.
        let rtmpRenditions = samples.renditions(ofOutput: "rtmp")
        #expect(!rtmpRenditions.isEmpty && rtmpRenditions.allSatisfy { $0 == Self.top.name }, "\(Set(rtmpRenditions))")
        #expect(received.sizes == ["\(Self.top.width)x\(Self.top.height)"] && received.codesInOrder, "\(summary)")
        #expect(received.frames.count == received.codes.count && !received.frames.isEmpty, "\(summary)")
        let covered = received.capturedMillis.map { $0.first < dropMillis && $0.last > recoverMillis } ?? false
        #expect(covered, "the recording does not span the narrow window: \(summary)")
        #expect(encodedWhileNarrow > 0 && Double(narrow.frames) >= 0.9 * Double(encodedWhileNarrow), "\(summary)")
        let target = Double(Self.top.bitrateBitsPerSecond)
        #expect(abs(narrow.bitsPerSecond - target) < 0.2 * target, "the RTMP output's bit rate moved with the viewer's link: \(summary)")

        // A viewer's link moves the viewer, never the shared encoders, and both encoded throughout.
        #expect(camera.renditions.map(\.encoderBitrateChanges) == [0, 0], "\(camera.renditions)")
        #expect(samples.encoderBitrates == [Self.top.name: [Self.top.bitrateBitsPerSecond], Self.low.name: [Self.low.bitrateBitsPerSecond]],
                "\(samples.encoderBitrates)")
        #expect(camera.renditions.allSatisfy { Double($0.framesEncoded) >= 0.8 * Double(received.frames.count) },
                "\(camera.renditions), \(received.frames.count) frames recorded")
    }
}

/// One viewer's JSON from chromium_bandwidth.py: its frame codes and decoded widths over time.
struct Watched {
    /// (page time ms, frame number, glass-to-glass ms, RTP timestamp of the frame it was read for)
    var codes: [(millis: Double, number: Int, latency: Double, rtpTimestamp: Int?)] = []
    /// (page time ms, decoded width)
    var sizes: [(millis: Double, width: Int)] = []
    /// Codes that went back (a lower number than the code before).
    var orderErrors: Int
    /// The same code read twice in a row: the same capture instant again, as happens when a switch's
    /// key frame is of the instant the other rendition's last frame showed (``RenditionSwitchPolicy``).
    var repeats: Int
    /// A code read again for a frame of another RTP timestamp (another capture instant), or where
    /// the timestamps are unknown, where the next one skips its successor (N, N, N+2 or later): the
    /// page drew the picture it already showed when the frame callback for the next frame came (seen
    /// in runs beside two builds and beside a busy core). A picture livepush sent twice carries its
    /// capture instant's timestamp twice; only those count as ``repeats``.
    var staleReads: Int
    /// Every step that did not go forward: (page time ms, code before, code after).
    var notForward: [(millis: Double, before: Int, after: Int)]

    /// Codes left out as misread: a capture clock more than a minute from the page's. The code's
    /// CRC-8 lets about one in 256 damaged reads through (a blurred 360p code band is read many
    /// times a run), and such a read carries a random clock as well as a random frame number.
    var misreads = 0
    static let plausibleLatencyMillis = -1000.0...60_000.0

    init(_ result: [String: Any]) {
        for code in result["codes"] as? [[Any]] ?? [] where code.count >= 3 {
            let figures = code.prefix(3).compactMap { $0 as? NSNumber }
            guard figures.count == 3, Self.plausibleLatencyMillis.contains(figures[2].doubleValue) else {
                misreads += 1
                continue
            }
            codes.append((figures[0].doubleValue, figures[1].intValue, figures[2].doubleValue, (code.dropFirst(3).first as? NSNumber)?.intValue))
        }
        for size in result["sizes"] as? [[Any]] ?? [] {
            if let millis = size.first as? NSNumber, size.count > 1, let width = size[1] as? NSNumber { sizes.append((millis.doubleValue, width.intValue)) }
        }
        notForward = zip(codes, codes.dropFirst()).filter { $0.1.number <= $0.0.number }.map { ($0.1.millis, $0.0.number, $0.1.number) }
        orderErrors = notForward.filter { $0.after < $0.before }.count
        let (codes, numbers) = (codes, codes.map(\.number))
        staleReads = codes.indices.dropFirst().filter { index in
            guard numbers[index] == numbers[index - 1] else { return false }
            if let timestamp = codes[index].rtpTimestamp, let before = codes[index - 1].rtpTimestamp { return timestamp != before }
            return index + 1 < numbers.count && numbers[index + 1] > numbers[index] + 1
        }.count
        repeats = notForward.count - orderErrors - staleReads
    }

    var longestGapMillis: Double { zip(codes, codes.dropFirst()).map { $0.1.millis - $0.0.millis }.max() ?? .infinity }

    func latencyPercentile(_ fraction: Double, from: Double = 0, to: Double = .infinity) -> Double {
        let sorted = codes.filter { $0.millis >= from && $0.millis <= to }.map(\.latency).sorted()
        guard !sorted.isEmpty else { return .infinity }
        return sorted[min(sorted.count - 1, Int(fraction * Double(sorted.count)))]
    }

    func widths(after millis: Double) -> [Int] { sizes.filter { $0.millis >= millis }.map(\.width) }

    /// Seconds from `after` to the first sample of `width` from which every sample up to `until` has it.
    func secondsToSettle(onWidth width: Int, after: Double, until: Double) -> Double? {
        let window = sizes.filter { $0.millis >= after && $0.millis <= until }
        guard let last = window.lastIndex(where: { $0.width != width }) else { return window.isEmpty ? nil : (window[0].millis - after) / 1000 }
        guard last + 1 < window.count else { return nil }
        return (window[last + 1].millis - after) / 1000
    }

    func summary(dropMillis: Double, recoverMillis: Double, low: Int, top: Int) -> String {
        let p95 = latencyPercentile(0.95), p50 = latencyPercentile(0.5)
        let drop = latencyPercentile(0.95, from: dropMillis - 2000, to: dropMillis + 10_000)
        let settle = secondsToSettle(onWidth: low, after: dropMillis, until: dropMillis + 10_000)
        let up = sizes.first { $0.millis >= recoverMillis && $0.width == top }.map { ($0.millis - recoverMillis) / 1000 }
        let steps = notForward.map { String(format: "%.1f s after the drop: %d → %d", ($0.millis - dropMillis) / 1000, $0.before, $0.after) }
        return String(format: "%d codes (%d misread), %d out of order, %d repeated, %d stale reads (%@), longest gap %.0f ms, glass-to-glass p50 %.0f p95 %.0f ms (drop window p95 %.0f), settled low after %@ s, back on top %@ s after recovery",
                      codes.count, misreads, orderErrors, repeats, staleReads, steps.joined(separator: ", "), longestGapMillis, p50, p95, drop,
                      settle.map { String(format: "%.1f", $0) } ?? "never", up.map { String(format: "%.1f", $0) } ?? "never")
    }
}
