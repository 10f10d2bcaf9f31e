import Capture
import Foundation
import Harness
import MediaCore

/// WebRTC on loopback at 720p30 2.5 Mbit/s (test pattern, x264 veryfast/zerolatency, constrained
/// baseline as browsers take it):
///
///     livepush bench --only webrtc [--frames 600] [--python .build-venv/bin/python]
///
/// 1. Glass-to-glass latency: test-pattern capture time (the burned-in frame code's
///    CLOCK_MONOTONIC stamp) → the frame decoded in aiortc, p50 and p99 after a 2 s warm-up, split
///    into the sender's share (capture → the frame's last packet received: encode, packetize,
///    protect, send) and aiortc's (its jitter buffer holds a frame until the next one starts, about
///    one frame interval, then decodes). The same receive path (aiortc's depacketizer, jitter buffer
///    and decoder thread, without ICE/DTLS/SRTP) takes `livepush stream --rtp` and ffmpeg encoding
///    the same test pattern (fed raw through a pipe) to `-f rtp`: that compares the senders.
/// 2. CPU per added viewer: livepush's own CPU time (/proc/PID/stat) with 0, 1, 2 and 4 WHEP
///    viewers attached (aiortc receiving without decoding, so four fit on two cores beside it).
struct WebRTCBenchmark {
    static let size = VideoSize(width: 1280, height: 720)
    static let stream = ["--source", "testpattern", "--size", "1280x720", "--fps", "30", "--bitrate", "2500k",
                         "--profile", "baseline", "--keyint", "2"]
    static let warmUpSeconds = 2

    var seconds: Int
    var python: String?

    func run() throws -> [BenchTable] {
        let python = try python ?? PythonPeers.python()
        // Everything in a loopback-only namespace, as the WebRTC tests run: only 127.0.0.1 candidates.
        let namespace = try LoopbackNamespace(holdingForSeconds: 4 * seconds + 300)
        defer { namespace.stop() }
        return [try latency(python, namespace), try costPerViewer(python, namespace)]
    }

    // MARK: Latency

    private func latency(_ python: String, _ namespace: LoopbackNamespace) throws -> BenchTable {
        var table = BenchTable(
            title: "Glass-to-glass on loopback, 720p30 2.5 Mbit/s, test pattern → aiortc 1.16 (\(seconds) s after a \(Self.warmUpSeconds) s warm-up; ms, p50 / p99)",
            columns: ["sender → receiver", "frames (codes read)", "capture → decoded", "capture → last packet received", "aiortc jitter buffer + decode"])
        let receiving = "\(seconds)"

        let livepush = try startLivepushWeb(durationSeconds: seconds + 60, in: namespace)
        let viewer = try Self.receiver(python, ["whep", try whepURL(of: livepush), receiving], in: namespace)
        viewer.waitForExit(timeoutSeconds: Double(seconds + 30))
        viewer.stop()
        livepush.stop()
        table.rows.append(try row("livepush WHEP (ICE-lite, DTLS-SRTP) → aiortc WebRTC", viewer))

        let rtpPort = 5004  // the namespace is new: every port is free
        let rtpReceiver = try Self.receiver(python, ["rtp", "\(rtpPort)", receiving], in: namespace)
        guard rtpReceiver.waitForOutput(containing: "listening", timeoutSeconds: 20) else { throw failure("RTP receiver", rtpReceiver) }
        let rtpSender = try BackgroundProcess(logging: LivepushExecutable.path, ["stream"] + Self.stream + [
            "--rtp", "rtp://127.0.0.1:\(rtpPort)", "--duration", "\(seconds + 60)"], in: namespace)
        rtpReceiver.waitForExit(timeoutSeconds: Double(seconds + 30))
        rtpReceiver.stop()
        rtpSender.stop()
        table.rows.append(try row("livepush --rtp → aiortc's RTP path", rtpReceiver))

        let ffmpegPort = 5006
        let ffmpegReceiver = try Self.receiver(python, ["rtp", "\(ffmpegPort)", receiving], in: namespace)
        guard ffmpegReceiver.waitForOutput(containing: "listening", timeoutSeconds: 20) else { throw failure("RTP receiver", ffmpegReceiver) }
        try sendThroughFFmpeg(port: ffmpegPort, atMostSeconds: seconds + 40, while: { ffmpegReceiver.process.isRunning }, in: namespace)
        ffmpegReceiver.waitForExit(timeoutSeconds: 10)
        ffmpegReceiver.stop()
        table.rows.append(try row("test pattern → ffmpeg libx264 -f rtp → aiortc's RTP path", ffmpegReceiver))
        return table
    }

    private func row(_ name: String, _ receiver: BackgroundProcess) throws -> [String] {
        guard let tally = receiver.jsonResult, tally["error"] == nil, let frames = tally["frames"] as? Int, frames > 0 else {
            throw failure(name, receiver)
        }
        func pair(_ key: String) -> String {
            let p50 = (tally[key + "P50Ms"] as? Double).map { String(format: "%.1f", $0) } ?? "–"
            let p99 = (tally[key + "P99Ms"] as? Double).map { String(format: "%.1f", $0) } ?? "–"
            return "\(p50) / \(p99)"
        }
        return [name, "\(frames) (\(tally["codes"] as? Int ?? 0))", pair("latency"), pair("senderShare"), pair("receiverShare")]
    }

    /// The test pattern (this process, on its own clock) as raw I420 through a named pipe into
    /// `ffmpeg -c:v libx264 … -f rtp`, with livepush's encoder settings and RTP payload size, while
    /// the receiver still wants frames.
    private func sendThroughFFmpeg(port: Int, atMostSeconds seconds: Int, while receiving: () -> Bool, in namespace: LoopbackNamespace) throws {
        let feed = try TestPatternFeed(size: Self.size)
        let ffmpeg = try BackgroundProcess(logging: "/usr/bin/ffmpeg", [
            "-hide_banner", "-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "1280x720", "-framerate", "30",
            "-i", feed.path, "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-profile:v", "baseline",
            "-b:v", "2500k", "-maxrate", "2500k", "-bufsize", "2500k", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0",
            "-f", "rtp", "-pkt_size", "1212", "rtp://127.0.0.1:\(port)",
        ], in: namespace)
        defer { ffmpeg.stop() }
        try feed.write(seconds: Double(seconds)) { ffmpeg.process.isRunning && receiving() }
        ffmpeg.waitForExit(timeoutSeconds: 10)
    }

    // MARK: CPU per viewer

    private func costPerViewer(_ python: String, _ namespace: LoopbackNamespace) throws -> BenchTable {
        let viewerCounts = [0, 1, 2, 4]
        let settleSeconds = 4.0
        let windowSeconds = Double(max(5, seconds / 2))
        let phaseSeconds = settleSeconds + windowSeconds
        let livepush = try startLivepushWeb(durationSeconds: Int(phaseSeconds) * viewerCounts.count + 30, in: namespace)
        defer { livepush.stop() }
        let url = try whepURL(of: livepush)
        var viewers: [BackgroundProcess] = []
        var coreShares: [Double] = []
        for (phase, count) in viewerCounts.enumerated() {
            // Every viewer receives until the last window has closed.
            let remaining = Int(phaseSeconds * Double(viewerCounts.count - phase)) + 2
            while viewers.count < count { viewers.append(try Self.receiver(python, ["whep", url, "\(remaining)", "--no-decode"], in: namespace)) }
            Thread.sleep(forTimeInterval: settleSeconds)
            guard let before = livepush.sample?.cpuSeconds else { throw failure("livepush", livepush) }
            Thread.sleep(forTimeInterval: windowSeconds)
            guard let after = livepush.sample?.cpuSeconds else { throw failure("livepush", livepush) }
            coreShares.append((after - before) / windowSeconds)
        }
        for viewer in viewers {
            viewer.waitForExit(timeoutSeconds: 20)
            viewer.stop()
            guard let packets = viewer.jsonResult?["packetsReceived"] as? Int, packets > 0 else { throw failure("a WHEP viewer", viewer) }
        }
        var table = BenchTable(
            title: "livepush CPU with WHEP viewers attached, 720p30 2.5 Mbit/s (one encode; \(Int(windowSeconds)) s per row; aiortc viewers without decoding)",
            columns: ["viewers", "livepush CPU, % of one core", "ms per frame", "added per extra viewer, % of one core"])
        for (index, count) in viewerCounts.enumerated() {
            let marginal = index == 0 ? "–" : String(format: "%.2f %%", (coreShares[index] - coreShares[index - 1]) * 100
                / Double(count - viewerCounts[index - 1]))
            table.rows.append(["\(count)", String(format: "%.1f %%", coreShares[index] * 100),
                               String(format: "%.2f", coreShares[index] / 30 * 1000), marginal])
        }
        let perViewer = (coreShares[viewerCounts.count - 1] - coreShares[1]) / Double(viewerCounts[viewerCounts.count - 1] - 1)
        table.rows.append(["1 → 4, per viewer", "", String(format: "%.3f", perViewer / 30 * 1000), String(format: "%.2f %%", perViewer * 100)])
        return table
    }

    // MARK: Helpers

    /// An aiortc receiver (the test peers' aiortc_bench.py; see its usage) inside `namespace`.
    private static func receiver(_ python: String, _ arguments: [String], in namespace: LoopbackNamespace) throws -> BackgroundProcess {
        try PythonPeers.start("aiortc_bench.py", arguments, python: python, in: namespace)
    }

    private func startLivepushWeb(durationSeconds: Int, in namespace: LoopbackNamespace) throws -> BackgroundProcess {
        let livepush = try BackgroundProcess(logging: LivepushExecutable.path, ["stream"] + Self.stream + [
            "--web", "127.0.0.1:0", "--adaptive-bitrate", "--duration", "\(durationSeconds)"], in: namespace)
        guard livepush.waitForOutput(containing: "watch at", timeoutSeconds: 20) else { throw failure("livepush stream --web", livepush) }
        return livepush
    }

    /// The WHEP URL from livepush's "watch at … (WHEP http://…/whep, …)" line.
    private func whepURL(of livepush: BackgroundProcess) throws -> String {
        let output = livepush.output
        guard let start = output.range(of: "(WHEP ")?.upperBound,
              let end = output[start...].firstIndex(where: { $0 == "," || $0 == ")" }) else { throw failure("livepush stream --web", livepush) }
        return String(output[start..<end])
    }

    private func failure(_ name: String, _ process: BackgroundProcess) -> ValidationErrorText {
        ValidationErrorText("\(name) failed: \(process.output.suffix(1500))")
    }
}

extension BackgroundProcess {
    /// The last line of the output that is a JSON object (the Python receivers print one as their result).
    var jsonResult: [String: Any]? {
        output.split(separator: "\n").reversed().lazy
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.first
    }
}
