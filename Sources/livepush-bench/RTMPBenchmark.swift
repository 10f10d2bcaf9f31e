import Foundation
import MediaCore

/// Busy test pattern → x264 veryfast/zerolatency 2.5 Mbit/s 720p30 → RTMP to a local nginx-rtmp, with livepush
/// (`livepush stream --source testpattern:busy`, this binary) beside `ffmpeg -re -f lavfi -i testsrc2 … -f flv`
/// using the same x264 parameters, one after the other against the same server. Both sources keep x264 at
/// its bitrate (the table shows what nginx received from each), so both do the same work:
///
///     livepush bench --only rtmp [--seconds 20]
///
/// CPU is user+system time of each child per frame (RUSAGE_CHILDREN deltas: both render their own test
/// pattern), peak memory is the child's VmHWM, steady memory the mean VmRSS from 5 s in to the end, and
/// latency (livepush only) is capture timestamp → the frame's last byte handed to the socket, as
/// `livepush stream` reports it.
struct RTMPBenchmark {
    var seconds: Int

    struct Measurement {
        var cpuPerFrame: Double
        var peakRSSKiB: Int
        var steadyRSSKiB: Int
        var output: String
    }

    func run() throws -> BenchTable {
        let server = try BenchNginx()
        defer { server.stop() }
        let frames = Double(seconds * 30)
        let ours = try measure(LivepushExecutable.path, [
            "stream", "--source", "testpattern:busy", "--size", "1280x720", "--fps", "30", "--encoder", "libx264",
            "--preset", "veryfast", "--bitrate", "2500k", "--keyint", "2", "--duration", "\(seconds)s", server.url("livepush"),
        ], frames: frames)
        let theirs = try measure("/usr/bin/ffmpeg", [
            "-hide_banner", "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30",
            "-t", "\(seconds)", "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-profile:v", "high",
            "-b:v", "2500k", "-maxrate", "2500k", "-bufsize", "2500k", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0",
            "-pix_fmt", "yuv420p", "-f", "flv", server.url("ffmpeg"),
        ], frames: frames)
        let latency = ours.output.split(separator: "\n").first { $0.contains("send latency") }
            .map { String($0[$0.range(of: "send latency")!.upperBound...]).trimmingCharacters(in: .whitespaces) } ?? "not reported"
        var table = BenchTable(title: "RTMP publish, busy test pattern → x264 veryfast/zerolatency 2.5 Mbit/s 720p30 → local nginx-rtmp (\(seconds) s each)",
                               columns: ["publisher", "nginx received kbit/s", "CPU ms/frame", "peak RSS MiB", "steady RSS MiB", "capture → last byte written"])
        func ms(_ value: Double) -> String { String(format: "%.2f", value * 1000) }
        func mib(_ kib: Int) -> String { String(format: "%.1f", Double(kib) / 1024) }
        func kbits(_ key: String) -> String { server.recordedKilobitsPerSecond(key: key).map { "\($0)" } ?? "no recording" }
        table.rows.append(["livepush stream --source testpattern:busy", kbits("livepush"), ms(ours.cpuPerFrame), mib(ours.peakRSSKiB),
                           mib(ours.steadyRSSKiB), latency])
        table.rows.append(["ffmpeg -re -f lavfi -i testsrc2 … -f flv", kbits("ffmpeg"), ms(theirs.cpuPerFrame), mib(theirs.peakRSSKiB),
                           mib(theirs.steadyRSSKiB), "–"])
        return table
    }

    private func measure(_ executable: String, _ arguments: [String], frames: Double) throws -> Measurement {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        // A file, not a pipe: the child prints a status line every 250 ms and would block on a full pipe.
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("livepush-bench-\(UUID().uuidString).log").path
        FileManager.default.createFile(atPath: outputPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = FileHandle.nullDevice
        let before = Self.childCPUSeconds()
        try process.run()
        var peak = 0
        var steady: [Int] = []
        let started = MonotonicClock.nowNanos()
        let deadline = started + Int64(seconds + 30) * 1_000_000_000
        while process.isRunning, MonotonicClock.nowNanos() < deadline {
            peak = max(peak, BenchChild.peakRSSKiB(pid: process.processIdentifier) ?? 0)
            if MonotonicClock.nowNanos() - started > 5_000_000_000, let resident = BenchChild.statusKiB("VmRSS", pid: process.processIdentifier) {
                steady.append(resident)
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw ValidationErrorText("\(executable) did not finish in time")
        }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else { throw ValidationErrorText("\(executable) exited \(process.terminationStatus)") }
        return Measurement(cpuPerFrame: (Self.childCPUSeconds() - before) / frames, peakRSSKiB: peak,
                           steadyRSSKiB: steady.reduce(0, +) / max(1, steady.count), output: output)
    }

    private static func childCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
