import Foundation
import Harness

/// CPU-overload adaptation on one core: `livepush stream` pinned with `taskset -c 0`, asked for a
/// 1080p60 test pattern from x264 `medium` (far more than one core encodes) with `--adapt-cpu`,
/// publishing to nginx-rtmp; beside it `ffmpeg` pinned the same way encoding the same size and
/// rate from `testsrc2` at its native rate (`-re`), which has nothing to adapt: it falls behind.
///
/// livepush: the rung it ends on, the time from start to its last step down (settling), its steps,
/// and its encoder drops from 10 s after settling to the end. ffmpeg: the frame rate and speed it
/// managed (speed below 1× means it fell behind real time).
///
///     swift build -c release && .build/release/livepush-bench --only overload --frames 600
struct OverloadBenchmark {
    /// Seconds each run lasts.
    var seconds: Int

    func run() throws -> BenchTable {
        let nginx = try NginxRTMPServer(recording: .video)
        defer { nginx.kill() }
        var table = BenchTable(title: "1920x1080@60 x264 medium pinned to one core (taskset -c 0), \(seconds) s each",
                               columns: ["run", "ends at", "settled after", "steps down / up", "encoder drops after settling", "fps / speed"])
        let livepush = try BackgroundProcess(logging: "/usr/bin/taskset", ["-c", "0", LivepushExecutable.path, "stream", "--source", "testpattern",
                                                           "--size", "1920x1080", "--fps", "60", "--encoder", "libx264", "--preset", "medium",
                                                           "--bitrate", "4000k", "--adapt-cpu", "--duration", "\(seconds)s", nginx.url(key: "livepush")])
        guard livepush.waitForExit(timeoutSeconds: Double(seconds) + 60) else {
            livepush.stop()
            throw ValidationErrorText("livepush did not stop after --duration: \(livepush.output.suffix(2000))")
        }
        let samples = livepush.output.split(separator: "\n").compactMap(AdaptationSample.init)
        guard let last = samples.last else { throw ValidationErrorText("livepush printed no adaptation status: \(livepush.output.suffix(2000))") }
        let settledAt = samples.first { $0.stepsDown == last.stepsDown }?.uptimeSeconds ?? 0
        let afterSettling = samples.first { $0.stepsDown == last.stepsDown && $0.uptimeSeconds >= settledAt + 10 }
        table.rows.append(["livepush --adapt-cpu", last.rung, last.stepsDown > 0 ? "\(settledAt) s" : "never stepped",
                           "\(last.stepsDown) / \(last.stepsUp)",
                           afterSettling.map { "\(last.encoderDrops - $0.encoderDrops) in \(last.uptimeSeconds - $0.uptimeSeconds) s" } ?? "n/a (settled late)",
                           "\(last.encodedFps) fps encoded (mean)"])

        let ffmpeg = try BackgroundProcess(logging: "/usr/bin/taskset", ["-c", "0", "ffmpeg", "-hide_banner", "-nostdin", "-v", "error", "-stats", "-re",
                                                         "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=60", "-t", "\(seconds)",
                                                         "-c:v", "libx264", "-preset", "medium", "-tune", "zerolatency", "-b:v", "4000k",
                                                         "-f", "flv", nginx.url(key: "ffmpeg")])
        // At under 1× it needs longer than `seconds` for its `seconds` of input: bound it at 4×, then stop it.
        if !ffmpeg.waitForExit(timeoutSeconds: Double(seconds) * 4 + 30) { ffmpeg.stop() }
        let stats = ffmpeg.output.split(whereSeparator: { $0 == "\r" || $0 == "\n" }).last { $0.contains("speed=") }.map(String.init) ?? ""
        table.rows.append(["ffmpeg -re (no adaptation)", "1920x1080@60", "—", "—", "—",
                           "\(Self.field("fps", in: stats) ?? "?") fps, speed \(Self.field("speed", in: stats) ?? "?")"])
        return table
    }

    /// `fps= 12` → "12" in an ffmpeg stats line.
    static func field(_ name: String, in line: String) -> String? {
        guard let range = line.range(of: "\(name)=") else { return nil }
        return line[range.upperBound...].trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init)
    }
}

/// The numbers of one `stream` status line the benchmark reads: `encoded N  dropped capture C encoder E
/// adapt RUNG down D up U … uptime T s`.
private struct AdaptationSample {
    var uptimeSeconds: Int
    var encoded: Int
    var encoderDrops: Int
    var rung: String
    var stepsDown: Int
    var stepsUp: Int
    /// The mean encoded rate since start.
    var encodedFps: Int { uptimeSeconds > 0 ? encoded / uptimeSeconds : 0 }

    init?(_ line: Substring) {
        let words = line.split(separator: " ")
        guard words.first == "encoded", words.count > 10, let encoded = Int(words[1]),
              let encoder = words.firstIndex(of: "encoder"), encoder + 1 < words.count, let drops = Int(words[encoder + 1]),
              let adapt = words.firstIndex(of: "adapt"), adapt + 5 < words.count,
              let down = Int(words[adapt + 3]), let up = Int(words[adapt + 5]),
              let uptime = words.lastIndex(of: "uptime"), uptime + 1 < words.count, let seconds = Int(words[uptime + 1]) else { return nil }
        (self.encoded, encoderDrops, rung, stepsDown, stepsUp, uptimeSeconds) = (encoded, drops, String(words[adapt + 1]), down, up, seconds)
    }
}
