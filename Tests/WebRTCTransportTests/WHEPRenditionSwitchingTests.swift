import Capture
import Codec
import Foundation
import MediaCore
import Pipeline
import Server
import Synchronization
import Testing
import TestSupport
@testable import WebRTCTransport

/// Issue #16's bandwidth step: the pipeline's two renditions of one busy test pattern (720p at
/// 2.5 Mbit/s, 360p at 600 kbit/s: one capture, each rendition its own libx264 encode) feed one
/// WHEPService, and two headless Chromium viewers watch on the player page. One watches through a
/// relay whose link steps 5 → 1 → 5 Mbit/s (token bucket, 300 ms drop-tail queue, 20 ms each way);
/// the other watches directly. The limited viewer must keep decoding (frame codes continue in order,
/// decoding never stops), settle on 360p while the link is narrow and come back to 720p; the other must
/// stay on 720p throughout, and the viewers never lower the renditions' encoders. The time to settle
/// and glass-to-glass latency through the drop are printed for BENCHMARKS.md (timings are measured,
/// not asserted).
///
/// It runs on 127.0.0.1 in the test's own process (the service's event loop and the pipeline are
/// in-process, so the test reads each viewer's link every half second); every port is a free one.
@Suite(.serialized) struct WHEPRenditionSwitchingTests {
    static let renditions = [
        RenditionDescription(name: "720p", width: 1280, height: 720, framesPerSecond: 30, bitrateBitsPerSecond: 2_500_000),
        RenditionDescription(name: "360p", width: 640, height: 360, framesPerSecond: 30, bitrateBitsPerSecond: 600_000),
    ]
    /// Seconds after the relay's first media packet.
    static let dropSeconds = 15.0, recoverSeconds = 35.0
    static let watchSeconds = 80.0

    /// Each rendition's encode: a half-second VBV keeps a key frame within what the narrow link queues.
    static func pipelineRendition(_ rendition: RenditionDescription) -> StreamPipeline.Rendition {
        StreamPipeline.Rendition(description: rendition, settings: VideoEncoderSettings(
            width: rendition.width, height: rendition.height, framesPerSecond: rendition.framesPerSecond,
            bitrateBitsPerSecond: rendition.bitrateBitsPerSecond, bufferSizeBits: rendition.bitrateBitsPerSecond / 2,
            keyframeIntervalSeconds: 30, preset: "ultrafast", profile: .baseline, threads: 1))
    }

    @Test
    func aViewerFollowsItsNarrowingLinkBetweenRenditionsAndAnotherStaysOnTop() async throws {
        try ExternalTool.require("chromium"); try ExternalTool.require("chromedriver")
        let python = try PythonPeers.python()
        let service = try WHEPService(configuration: WHEPConfiguration(udpHost: "127.0.0.1", udpPort: 0))
        let capture = Self.renditions[0]
        let capturer = TestPatternCapturer(source: TestPatternSource(busy: true),
                                           config: CaptureConfig(size: VideoSize(width: capture.width, height: capture.height),
                                                                 framesPerSecond: Double(capture.framesPerSecond)))
        let pipeline = try StreamPipeline(capturer: capturer, renditions: Self.renditions.map(Self.pipelineRendition),
                                          outputs: [(service, 0)])
        _ = try await pipeline.start()
        // A failed requirement below still stops the capture and encoder threads (after the normal stop, nothing).
        var pipelineRunning = true
        defer { if pipelineRunning { Task { [pipeline] in await pipeline.stop() } } }
        let whepPort = Int(try #require(service.udpAddress?.port))

        let routes = WHEPRoutes(service: service)
        let web = LivepushBinary.repository.appendingPathComponent("web").path
        let server = PlayerServer(host: "127.0.0.1", port: 0, webRoot: web, routes: routes)
        let (listening, continuation) = AsyncStream<Int>.makeStream()
        let http = Task { try? await server.run { continuation.yield($0) }; continuation.finish() }
        defer { http.cancel() }
        let httpPort = try #require(await listening.first { _ in true })
        let page = "http://127.0.0.1:\(httpPort)/player.html"

        let relay = try LossyUDPRelay(
            port: try LoopbackUDPSocket.freePorts(count: 1), targetPort: whepPort, lossPercent: 0, lossy: [], deadlineSeconds: Self.watchSeconds + 30,
            delaySeconds: 0.02,
            bottleneck: .init(steps: [.init(atSeconds: 0, bitsPerSecond: 5_000_000), .init(atSeconds: Self.dropSeconds, bitsPerSecond: 1_000_000),
                                      .init(atSeconds: Self.recoverSeconds, bitsPerSecond: 5_000_000)], queueLimitSeconds: 0.3))
        defer { relay.stop() }
        let script = "\(PythonPeers.scripts)/chromium_bandwidth.py"
        let limited = try BackgroundProcess("timeout", ["-k", "5", "\(Int(Self.watchSeconds) + 30)", python, script, page, "\(Self.watchSeconds)",
                                                        "\(whepPort)", "\(relay.socket.port)"])
        let direct = try BackgroundProcess("timeout", ["-k", "5", "\(Int(Self.watchSeconds) + 30)", python, script, page, "\(Self.watchSeconds)"])
        // Keep the viewers' links as the service saw them last, before the pages leave.
        var links: [String: WebRTCViewerLink] = [:]
        /// Each second since the relay's start, per viewer (by session id): estimate kbit/s, rendition, loss %.
        var timeline: [String] = []
        let deadline = Date().addingTimeInterval(Self.watchSeconds + 40)
        while (limited.isRunning || direct.isRunning), Date() < deadline {
            let latest = service.whepStatistics.viewerLinks
            if latest.count == 2 { links = latest }
            if let start = relay.bottleneckStartedAt, timeline.count < Int(Date().timeIntervalSince(start)) {
                timeline.append(String(format: "%.0f:", Date().timeIntervalSince(start))
                    + latest.sorted { $0.key < $1.key }.map { "\(($0.value.estimateBitsPerSecond ?? 0) / 1000)k/r\($0.value.rendition)/l\(Int(($0.value.feedbackLossFraction ?? 0) * 100))" }.joined(separator: ","))
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        let encodes = pipeline.status.renditions
        await pipeline.stop()
        pipelineRunning = false

        let logs = "limited: \(limited.errorOutput.suffix(1500))\ndirect: \(direct.errorOutput.suffix(1500))"
        let limitedResult = try #require(PythonPeers.result(limited.output), "no JSON from the limited viewer\n\(logs)")
        let directResult = try #require(PythonPeers.result(direct.output), "no JSON from the direct viewer\n\(logs)")
        let start = try #require(relay.bottleneckStartedAt, "no media went through the relay\n\(logs)")
        let dropMillis = (start.timeIntervalSince1970 + Self.dropSeconds) * 1000
        let recoverMillis = (start.timeIntervalSince1970 + Self.recoverSeconds) * 1000
        let watched = Watched(limitedResult), other = Watched(directResult)
        let (top, low) = (Self.renditions[0].width, Self.renditions[1].width)
        let summary = "limited: \(watched.summary(dropMillis: dropMillis, recoverMillis: recoverMillis, low: low, top: top)); "
            + "direct: \(other.summary(dropMillis: dropMillis, recoverMillis: recoverMillis, low: low, top: top)); links \(links); relay \(relay.fromTarget); "
            + "timeline \(timeline.joined(separator: " "))"
        print("WHEPRenditionSwitchingTests: \(summary)")
        #expect(limitedResult["rewrittenCandidates"] as? Int ?? 0 >= 1, "the limited viewer bypassed the relay: \(summary)")
        #expect(relay.fromTarget.droppedAtBottleneck > 0, "the bottleneck never filled: \(summary)")

        // Decoding goes on: codes read in order, from first to last. A viewer still on 720p when the
        // link narrows freezes until the 360p key frame gets through the full queue (0.8–2.2 s
        // measured; the summary prints it for BENCHMARKS.md); 5 s tells a freeze from decoding that stopped.
        let (codesRead, outOfOrder, longestGap) = (watched.codes.count, watched.orderErrors, watched.longestGapMillis)
        #expect(outOfOrder == 0 && codesRead > 1000, "\(summary)")
        #expect(longestGap < 5000, "decoding stopped: \(summary)")
        // Settles on the lower rendition after the drop and stays there while the link is narrow. How
        // fast (the issue asks 3 s) and the glass-to-glass p95 through the drop (400 ms) are measured,
        // not asserted: the summary above prints them, and BENCHMARKS.md keeps them.
        let settle = watched.secondsToSettle(onWidth: low, after: dropMillis, until: recoverMillis)
        #expect(settle != nil, "never settled on the lower rendition while the link was narrow: \(summary)")
        // Back on top once the link is wide again.
        let cameBack = watched.widths(after: recoverMillis).contains(top)
        #expect(cameBack, "did not come back up: \(summary)")
        // The direct viewer is never touched.
        let otherWidths = other.widths(after: 0)
        #expect(!otherWidths.isEmpty && otherWidths.allSatisfy { $0 == top }, "\(summary)")
        let (otherOutOfOrder, otherGap) = (other.orderErrors, other.longestGapMillis)
        #expect(otherOutOfOrder == 0 && otherGap < 1000, "\(summary)")
        let switched = links.values.contains { $0.renditionSwitches >= 2 && $0.estimateSource == "transport-cc" }
        #expect(switched, "\(summary)")
        // With several renditions a viewer's link moves the viewer, never the shared encoders.
        #expect(encodes.map(\.bitrate.changes) == [0, 0] && encodes.map(\.bitrate.bitsPerSecond) == Self.renditions.map(\.bitrateBitsPerSecond),
                "\(encodes.map(\.bitrate))")
        #expect(encodes.allSatisfy { $0.encoder.encoded > 1000 }, "\(encodes.map(\.encoder))")
    }
}

/// One viewer's JSON from chromium_bandwidth.py: its frame codes and decoded widths over time.
struct Watched {
    /// (page time ms, frame number, glass-to-glass ms)
    var codes: [(millis: Double, number: Int, latency: Double)] = []
    /// (page time ms, decoded width)
    var sizes: [(millis: Double, width: Int)] = []
    var orderErrors: Int

    init(_ result: [String: Any]) {
        for code in result["codes"] as? [[NSNumber]] ?? [] where code.count == 3 {
            codes.append((code[0].doubleValue, code[1].intValue, code[2].doubleValue))
        }
        for size in result["sizes"] as? [[Any]] ?? [] {
            if let millis = size.first as? NSNumber, size.count > 1, let width = size[1] as? NSNumber { sizes.append((millis.doubleValue, width.intValue)) }
        }
        orderErrors = zip(codes, codes.dropFirst()).filter { $0.1.number <= $0.0.number }.count
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
        return String(format: "%d codes, %d out of order, longest gap %.0f ms, glass-to-glass p50 %.0f p95 %.0f ms (drop window p95 %.0f), settled low after %@ s, back on top %@ s after recovery",
                      codes.count, orderErrors, longestGapMillis, p50, p95, drop, settle.map { String(format: "%.1f", $0) } ?? "never",
                      up.map { String(format: "%.1f", $0) } ?? "never")
    }
}
