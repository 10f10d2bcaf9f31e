import Foundation
import Harness
import Server

/// `livepush serve` with one camera (the busy test pattern) at 720p30 libx264 veryfast 2.5 Mbit/s and two
/// outputs, RTMP to a private nginx-rtmp and the built-in WHEP viewer with one aiortc viewer
/// attached (``ServeUnderTest``), beside the ffmpeg CLI doing the single RTMP output in the same run:
///
///     livepush bench --only serve [--frames 900]     (frames / 30 = seconds per window)
///
/// Two windows of serve: idle (both outputs stopped through the API; the camera still captures
/// and encodes, as it does for the dashboard) and streaming (both outputs running, one viewer).
/// CPU is the process's user + system time over the window (100 % = one core); RSS is VmRSS
/// sampled every second through the window (mean and highest), anonymous is RssAnon at its end
/// (heap, stacks, frame buffers: what the kernel cannot reclaim, unlike mapped files) and the
/// peak is VmHWM, start-up included.
struct ServeBenchmark {
    var seconds: Int
    static let warmUpSeconds = 5.0
    /// aiortc's import, ICE and DTLS take a few seconds before the first frame; ProcessFootprint's
    /// follow-up release of the set-up's code pages comes 10 s after the outputs start. The window
    /// measures the steady state after both (the peak column still holds everything before).
    static let viewerWarmUpSeconds = 15.0

    struct Window {
        var cpuPercent: Double
        var meanRSSKiB: Int
        var highestRSSKiB: Int
        var anonymousKiB: Int
        var peakKiB: Int
    }

    func run() throws -> BenchTable {
        var table = BenchTable(title: "livepush serve at 720p30 x264 veryfast 2.5 Mbit/s beside the ffmpeg CLI (\(seconds) s windows)",
                               columns: ["process", "window", "CPU % of one core", "RSS MiB mean / highest", "anonymous MiB",
                                         "peak RSS MiB", "what it delivered"])
        let serve = try ServeUnderTest(lifetimeSeconds: seconds * 3 + 180)
        do {
            Thread.sleep(forTimeInterval: Self.warmUpSeconds)
            try serve.setOutputs(running: false)
            Thread.sleep(forTimeInterval: 1)
            let encodedBefore = try serve.status().cameras.first?.framesEncoded ?? 0
            let idle = try measure(serve.serve)
            let encoded = (try serve.status().cameras.first?.framesEncoded ?? 0) - encodedBefore
            table.rows.append(row("livepush serve", "idle: outputs stopped, camera encoding", idle,
                                  "\(encoded) frames encoded in the window, nothing sent"))

            try serve.setOutputs(running: true)
            let viewerSeconds = Int(Self.viewerWarmUpSeconds) + seconds + 5
            let viewer = try serve.startViewer(frames: viewerSeconds * 30, timeoutSeconds: viewerSeconds + 30)
            Thread.sleep(forTimeInterval: Self.viewerWarmUpSeconds)
            let streaming = try measure(serve.serve)
            let outputs = try serve.status().cameras.first?.outputs ?? []
            let sent = outputs.map { "\($0.id) \($0.state) \(Int($0.bitrateBitsPerSecond / 1000)) kbit/s" }.joined(separator: ", ")
            viewer.waitForExit(timeoutSeconds: Double(viewerSeconds + 40))
            table.rows.append(row("livepush serve", "streaming: RTMP + WHEP, 1 aiortc viewer", streaming,
                                  "\(sent); viewer: \(Self.viewerSummary(viewer.output))"))
            serve.stop()
        } catch {
            serve.stop()
            throw error
        }

        let namespace = try LoopbackNamespace(holdingForSeconds: seconds + 120)
        defer { namespace.stop() }
        let nginx = try NginxRTMPServer(recording: .video, in: namespace)
        defer { nginx.kill() }
        let ffmpeg = try BackgroundProcess(logging: "/usr/bin/ffmpeg", [
            "-hide_banner", "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30",
            "-t", "\(Int(Self.warmUpSeconds) + seconds + 2)", "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency",
            "-profile:v", "high", "-b:v", "2500k", "-maxrate", "2500k", "-bufsize", "2500k", "-g", "60", "-keyint_min", "60",
            "-sc_threshold", "0", "-pix_fmt", "yuv420p", "-f", "flv", nginx.url(key: "ffmpeg"),
        ], in: namespace)
        defer { ffmpeg.stop() }
        Thread.sleep(forTimeInterval: Self.warmUpSeconds)
        let theirs = try measure(ffmpeg)
        guard ffmpeg.waitForExit(timeoutSeconds: 30), ffmpeg.process.terminationStatus == 0 else {
            throw ValidationErrorText("ffmpeg failed: \(ffmpeg.output.suffix(2000))")
        }
        let received = nginx.recordedKilobitsPerSecond(key: "ffmpeg").map { "nginx received \($0) kbit/s" } ?? "no recording"
        table.rows.append(row("ffmpeg -re -f lavfi -i testsrc2 … -f flv", "streaming: RTMP", theirs, "one RTMP output; \(received)"))
        return table
    }

    /// CPU over `seconds`, the resident set each second, anonymous memory at the end.
    private func measure(_ child: BackgroundProcess) throws -> Window {
        func exited() -> ValidationErrorText {
            ValidationErrorText("\(child.process.executableURL?.path ?? "") exited: \(child.output.suffix(2000))")
        }
        guard let before = child.sample else { throw exited() }
        let started = Date()
        var resident: [Int] = []
        for _ in 0..<seconds {
            Thread.sleep(forTimeInterval: 1)
            guard let sample = child.sample else { throw exited() }
            resident.append(sample.residentBytes / 1024)
        }
        guard let after = child.sample, let peak = child.peakRSSKiB, let anonymous = child.anonymousRSSKiB else { throw exited() }
        let elapsed = Date().timeIntervalSince(started)
        return Window(cpuPercent: (after.cpuSeconds - before.cpuSeconds) / elapsed * 100,
                      meanRSSKiB: resident.reduce(0, +) / max(1, resident.count), highestRSSKiB: resident.max() ?? 0,
                      anonymousKiB: anonymous, peakKiB: peak)
    }

    private func row(_ process: String, _ window: String, _ measured: Window, _ delivered: String) -> [String] {
        func mib(_ kib: Int) -> String { String(format: "%.1f", Double(kib) / 1024) }
        return [process, window, String(format: "%.1f", measured.cpuPercent), "\(mib(measured.meanRSSKiB)) / \(mib(measured.highestRSSKiB))",
                mib(measured.anonymousKiB), mib(measured.peakKiB), delivered]
    }

    /// The aiortc viewer's JSON line (its last line starting with "{"), decoded.
    static func viewerResult(_ output: String) -> [String: Any]? {
        guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }) else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
    }

    /// The aiortc viewer's JSON line in a few words (frames decoded, frame codes in order, latency).
    static func viewerSummary(_ output: String) -> String {
        guard let result = viewerResult(output) else {
            return "no result (\(output.suffix(300)))"
        }
        if let error = result["error"] { return "error \(error)" }
        let frames = result["frames"] as? Int ?? 0, codes = result["codes"] as? Int ?? 0
        let inOrder = result["inOrder"] as? Bool ?? false
        let p50 = result["latencyP50Ms"] as? Double, p99 = result["latencyP99Ms"] as? Double
        let latency = p50.map { String(format: ", latency p50 %.0f ms p99 %.0f ms", $0, p99 ?? 0) } ?? ""
        return "\(frames) frames decoded, \(codes) frame codes\(inOrder ? " in order" : " OUT OF ORDER")\(latency)"
    }
}
