import Codec
import Foundation
import Harness

/// Three renditions of one clip — 1080p30 at 6 Mbit/s, 720p30 at 3 Mbit/s, 480p30 at 1 Mbit/s,
/// x264 veryfast/zerolatency — each published over RTMP to a local nginx-rtmp, three ways one after
/// the other, all reading the same file (FFmpeg's testsrc2 at 1080p30, made once at near-lossless
/// quality), so every publisher encodes the same pictures and pays the same decode:
///
/// - `livepush stream --source file:… --rendition …`: one decode, three encoders scaling the same pooled frame;
/// - three separate `ffmpeg -re -i clip` processes, one per rendition, each scaling;
/// - one ffmpeg with `split` into three scalers and three encoders.
///
///     livepush-bench --only renditions [--frames 600]
///
/// CPU and memory are the publishers' together (``BenchProcesses``); what nginx received is per
/// rendition; capture → last byte written is livepush's own per-output figure (p50 / p99). For
/// livepush, each rendition's encoder thread's CPU (named "enc:NAME", sampled from
/// /proc/PID/task/*/stat every 100 ms, so the last 100 ms and the final flush are missed) is given
/// on its own: it includes scaling that rendition's frames; capture, decode and sending are the rest.
struct RenditionBenchmark {
    var seconds: Int

    struct Rendition {
        var name: String
        var width: Int
        var height: Int
        var bitrate: String
    }

    static let renditions = [Rendition(name: "1080p", width: 1920, height: 1080, bitrate: "6M"),
                             Rendition(name: "720p", width: 1280, height: 720, bitrate: "3M"),
                             Rendition(name: "480p", width: 854, height: 480, bitrate: "1M")]

    /// x264 as livepush opens it for a rendition at `bitrate`.
    static func x264(_ bitrate: String, stream: Int? = nil) -> [String] {
        let suffix = stream.map { ":\($0)" } ?? ""
        return ["-c:v\(suffix)", "libx264", "-preset\(suffix)", "veryfast", "-tune\(suffix)", "zerolatency", "-profile:v\(suffix)", "high",
                "-b:v\(suffix)", bitrate, "-maxrate\(suffix)", bitrate, "-bufsize\(suffix)", bitrate, "-g\(suffix)", "60", "-keyint_min\(suffix)", "60",
                "-sc_threshold\(suffix)", "0", "-pix_fmt\(suffix)", "yuv420p"]
    }

    func run() throws -> BenchTable {
        let nginx = try NginxRTMPServer(recording: .video)
        defer { nginx.kill() }
        let frames = Double(seconds * 30)
        let renditions = Self.renditions
        func key(_ publisher: String, _ rendition: Rendition) -> String { "\(publisher)-\(rendition.name)" }

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("livepush-bench-renditions-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clip = directory.appendingPathComponent("testsrc2-1080p30.mkv").path
        _ = try BenchCPU.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=\(seconds + 2)",
                                 "-c:v", "libx264", "-preset", "ultrafast", "-crf", "12", "-pix_fmt", "yuv420p", clip], timeoutSeconds: 120)

        let ours = try BenchProcesses.measure([(LivepushExecutable.path, [
            "stream", "--source", "file:\(clip)", "--size", "1920x1080", "--fps", "30", "--encoder", "libx264",
            "--preset", "veryfast", "--keyint", "2", "--duration", "\(seconds)s",
        ] + renditions.flatMap { ["--rendition", "\($0.name)=\($0.width)x\($0.height)@30:\($0.bitrate)"] }
          + renditions.map { "\($0.name)=\(nginx.url(key: key("livepush", $0)))" })], seconds: seconds, frames: frames)

        // An input -t ends every output of the split run (an output -t would end only the first).
        let source = ["-hide_banner", "-nostdin", "-v", "error", "-re", "-t", "\(seconds)", "-i", clip]
        let separate = try BenchProcesses.measure(renditions.map { rendition in
            ("/usr/bin/ffmpeg", source + ["-vf", "scale=\(rendition.width):\(rendition.height)"]
                + Self.x264(rendition.bitrate) + ["-f", "flv", nginx.url(key: key("separate", rendition))])
        }, seconds: seconds, frames: frames)

        let graph = "[0:v]split=3[s0][s1][s2];" + renditions.enumerated().map { index, rendition in
            index == 0 ? "[s0]null[v0]" : "[s\(index)]scale=\(rendition.width):\(rendition.height)[v\(index)]"
        }.joined(separator: ";")
        let outputs = renditions.enumerated().flatMap { index, rendition in
            ["-map", "[v\(index)]"] + Self.x264(rendition.bitrate) + ["-f", "flv", nginx.url(key: key("split", rendition))]
        }
        let split = try BenchProcesses.measure([("/usr/bin/ffmpeg", source + ["-filter_complex", graph] + outputs)],
                                               seconds: seconds, frames: frames)

        // One "send latency" line per RTMP output, in the order of the outputs (their keys are masked alike).
        let latencies = ours.output.split(separator: "\n").filter { $0.contains("send latency") }
            .map { String($0[$0.range(of: "send latency")!.upperBound...]).trimmingCharacters(in: .whitespaces) }
        var table = BenchTable(title: "Three renditions (1080p30 6M, 720p30 3M, 480p30 1M, x264 veryfast/zerolatency) of one testsrc2 clip, read from a file by every publisher → RTMP to local nginx-rtmp (\(seconds) s each)",
                               columns: ["publisher", "CPU ms/frame (all three)", "each rendition's encode CPU ms/frame, enc:NAME threads (1080p / 720p / 480p)", "peak RSS MiB", "steady RSS MiB", "nginx received kbit/s (1080p / 720p / 480p)",
                                         "capture → last byte written (1080p / 720p / 480p)"])
        func ms(_ value: Double) -> String { String(format: "%.2f", value * 1000) }
        func mib(_ kib: Int) -> String { String(format: "%.1f", Double(kib) / 1024) }
        func received(_ publisher: String) -> String {
            renditions.map { nginx.recordedKilobitsPerSecond(key: key(publisher, $0)).map(String.init) ?? "none" }.joined(separator: " / ")
        }
        let perEncoder = renditions.map { rendition in
            ours.threadCPUSeconds.first?[EncoderQueue.threadName(rendition: rendition.name)].map { ms($0 / frames) } ?? "not found"
        }.joined(separator: " / ")
        table.rows.append(["livepush stream --rendition ×3", ms(ours.cpuPerFrame), perEncoder, mib(ours.peakRSSKiB), mib(ours.steadyRSSKiB), received("livepush"),
                           latencies.count == renditions.count ? latencies.joined(separator: " / ") : "not reported"])
        table.rows.append(["3 × ffmpeg -re -i clip -vf scale … -f flv", ms(separate.cpuPerFrame), "–", mib(separate.peakRSSKiB), mib(separate.steadyRSSKiB),
                           received("separate"), "–"])
        table.rows.append(["ffmpeg … -filter_complex split=3,scale + 3 × libx264", ms(split.cpuPerFrame), "–", mib(split.peakRSSKiB), mib(split.steadyRSSKiB),
                           received("split"), "–"])
        return table
    }
}
