import Foundation
import Harness
import MediaCore

/// Busy test pattern → x264 veryfast/zerolatency 2.5 Mbit/s 720p30 → RTMP to a local nginx-rtmp, or
/// SRT (MPEG-TS) to a local ffmpeg listener, with livepush (`livepush stream --source testpattern:busy`,
/// this binary) beside `ffmpeg -re -f lavfi -i testsrc2 … -f flv` / `-f mpegts srt://…` using the same
/// x264 parameters, one after the other against the same kind of receiver. Both sources keep x264 at
/// its bitrate (the table shows what the receiver got from each), so both do the same work:
///
///     livepush-bench --only rtmp,srt [--frames 600]
///
/// CPU is user+system time of each child per frame (RUSAGE_CHILDREN deltas: both render their own test
/// pattern), peak memory is the child's VmHWM, steady memory the mean VmRSS from 5 s in to the end, and
/// latency (livepush only) is capture timestamp → the frame's last byte handed to the socket, as
/// `livepush stream` reports it.
struct PushBenchmark {
    enum Transport { case rtmp, srt }

    var transport: Transport
    var seconds: Int

    /// Where each publisher sends, and what the receiver got (kbit/s), per publisher name.
    private protocol Receiver {
        func url(_ name: String) throws -> (livepush: String, ffmpeg: String)
        func receivedKilobitsPerSecond(_ name: String) -> String
        func stop()
    }

    func run() throws -> BenchTable {
        let receiver: any Receiver = transport == .rtmp ? try NginxReceiver() : SRTListenerReceiver(seconds: seconds)
        defer { receiver.stop() }
        let frames = Double(seconds * 30)
        let x264 = ["-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-profile:v", "high",
                    "-b:v", "2500k", "-maxrate", "2500k", "-bufsize", "2500k", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0", "-pix_fmt", "yuv420p"]
        let ours = try measure(LivepushExecutable.path, [
            "stream", "--source", "testpattern:busy", "--size", "1280x720", "--fps", "30", "--encoder", "libx264",
            "--preset", "veryfast", "--bitrate", "2500k", "--keyint", "2", "--duration", "\(seconds)s", try receiver.url("livepush").livepush,
        ], frames: frames)
        let container = transport == .rtmp ? ["-f", "flv"] : ["-f", "mpegts"]
        let theirs = try measure("/usr/bin/ffmpeg", [
            "-hide_banner", "-nostdin", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30", "-t", "\(seconds)",
        ] + x264 + container + [try receiver.url("ffmpeg").ffmpeg], frames: frames)
        let latency = ours.output.split(separator: "\n").first { $0.contains("send latency") }
            .map { String($0[$0.range(of: "send latency")!.upperBound...]).trimmingCharacters(in: .whitespaces) } ?? "not reported"
        let (title, received, flag) = transport == .rtmp
            ? ("RTMP publish, busy test pattern → x264 veryfast/zerolatency 2.5 Mbit/s 720p30 → local nginx-rtmp", "nginx received kbit/s", "-f flv")
            : ("SRT push (MPEG-TS, latency 120 ms), busy test pattern → x264 veryfast/zerolatency 2.5 Mbit/s 720p30 → local ffmpeg SRT listener",
               "listener received kbit/s", "-f mpegts srt://")
        var table = BenchTable(title: "\(title) (\(seconds) s each)",
                               columns: ["publisher", received, "CPU ms/frame", "peak RSS MiB", "steady RSS MiB", "capture → last byte written"])
        func ms(_ value: Double) -> String { String(format: "%.2f", value * 1000) }
        func mib(_ kib: Int) -> String { String(format: "%.1f", Double(kib) / 1024) }
        table.rows.append(["livepush stream --source testpattern:busy", receiver.receivedKilobitsPerSecond("livepush"), ms(ours.cpuPerFrame),
                           mib(ours.peakRSSKiB), mib(ours.steadyRSSKiB), latency])
        table.rows.append(["ffmpeg -re -f lavfi -i testsrc2 … \(flag)", receiver.receivedKilobitsPerSecond("ffmpeg"), ms(theirs.cpuPerFrame),
                           mib(theirs.peakRSSKiB), mib(theirs.steadyRSSKiB), "–"])
        return table
    }

    /// A private nginx-rtmp; each publisher gets its own stream key and recording.
    private final class NginxReceiver: Receiver {
        let server: NginxRTMPServer
        init() throws { server = try NginxRTMPServer(recording: .video) }
        func url(_ name: String) throws -> (livepush: String, ffmpeg: String) { (server.url(key: name), server.url(key: name)) }
        func receivedKilobitsPerSecond(_ name: String) -> String { server.recordedKilobitsPerSecond(key: name).map { "\($0)" } ?? "no recording" }
        func stop() { server.kill() }
    }

    /// One Debian ffmpeg SRT listener per publisher, writing what it receives to a file whose size gives the rate.
    private final class SRTListenerReceiver: Receiver {
        let seconds: Int
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("livepush-bench-srt-\(UUID().uuidString)").path
        var listeners: [String: Process] = [:]

        init(seconds: Int) {
            self.seconds = seconds
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }

        func url(_ name: String) throws -> (livepush: String, ffmpeg: String) {
            let port = 43_000 + listeners.count
            let listener = Process()
            listener.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
            listener.arguments = ["-hide_banner", "-nostdin", "-v", "error", "-i", "srt://127.0.0.1:\(port)?mode=listener&latency=120000",
                                  "-c", "copy", "-f", "mpegts", "-y", "\(directory)/\(name).ts"]
            listener.standardInput = FileHandle.nullDevice
            listener.standardError = FileHandle.nullDevice
            try listener.run()
            listeners[name] = listener
            Thread.sleep(forTimeInterval: 0.5)
            return ("srt://127.0.0.1:\(port)?latency=120", "srt://127.0.0.1:\(port)?pkt_size=1316&latency=120000")
        }

        func receivedKilobitsPerSecond(_ name: String) -> String {
            let deadline = Date().addingTimeInterval(10)
            while listeners[name]?.isRunning == true, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
            let bytes = (try? FileManager.default.attributesOfItem(atPath: "\(directory)/\(name).ts")[.size] as? Int) ?? 0
            return bytes > 0 ? "\(bytes * 8 / 1000 / max(1, seconds))" : "nothing received"
        }

        func stop() {
            for listener in listeners.values where listener.isRunning { listener.terminate(); listener.waitUntilExit() }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    private func measure(_ executable: String, _ arguments: [String], frames: Double) throws -> BenchProcesses.Measurement {
        try BenchProcesses.measure([(executable, arguments)], seconds: seconds, frames: frames)
    }
}
