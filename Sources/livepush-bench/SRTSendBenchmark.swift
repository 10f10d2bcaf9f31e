import Codec
import Foundation
import MediaCore
import Output
import SRTOutput

/// The SRT send path alone, on one encoded stream: 720p30 x264 (2.5 Mbit/s, encoded once before
/// the clock starts) sent in real time by livepush's ``SRTStreamOutput`` (MPEG-TS muxing, 1316-byte
/// payloads, libsrt) in this process, beside `ffmpeg -re -f h264 -i STREAM -c copy -f mpegts srt://…`
/// sending the same frames; each to its own ffmpeg SRT listener on 127.0.0.1.
///
///     livepush-bench --only srt-send [--frames 600]
///
/// CPU is user+system time per frame: this whole process while only the output works (its thread
/// and libsrt's), against the ffmpeg child's.
struct SRTSendBenchmark {
    var frames: Int
    static let (width, height) = (1280, 720)

    func run() async throws -> BenchTable {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("livepush-bench-srt-send-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let encoded = try Self.encode(frames: frames)
        var stream: [UInt8] = []
        for frame in encoded {
            if frame.isKeyFrame { stream += frame.parameterSets.annexB }
            stream += frame.data
        }
        let file = "\(directory)/stream.h264"
        try Data(stream).write(to: URL(fileURLWithPath: file))

        let ours = try await sendWithLivepush(encoded, listener: try Listener(port: 43_100, writingTo: "\(directory)/livepush.ts"))
        let theirsListener = try Listener(port: 43_101, writingTo: "\(directory)/ffmpeg.ts")
        let theirs = try BenchCPU.ffmpeg(["-re", "-f", "h264", "-framerate", "30", "-i", file, "-c", "copy", "-f", "mpegts",
                                          "srt://127.0.0.1:43101?pkt_size=1316&latency=120000"], timeoutSeconds: Double(frames) / 30 * 2 + 20)
        let received = (ours: ours.listener.finish(), theirs: theirsListener.finish())
        var table = BenchTable(title: "SRT send path alone: one x264 720p30 2.5 Mbit/s stream (\(frames) frames, sent in real time) → local ffmpeg SRT listener",
                               columns: ["sender", "listener received bytes", "CPU ms/frame"])
        table.rows.append(["livepush SRTStreamOutput (MPEG-TS + libsrt)", "\(received.ours)", String(format: "%.3f", ours.cpu / Double(frames) * 1000)])
        table.rows.append(["ffmpeg -re -f h264 -i … -c copy -f mpegts srt://", "\(received.theirs)", String(format: "%.3f", theirs.cpu / Double(frames) * 1000)])
        return table
    }

    /// Encodes `frames` frames of the moving synthetic picture once.
    static func encode(frames: Int) throws -> [EncodedVideoFrame] {
        let video = SyntheticVideo(width: width, height: height, poolCapacity: 4)
        let encoder = try VideoEncoder(settings: EncoderBenchmark.settings(width: width, height: height))
        var encoded: [EncodedVideoFrame] = []
        for number in 0..<frames {
            guard var frame = try video.frame(number: number) else { continue }
            frame.captureTimeNanos = video.captureTimeNanos(frameNumber: number)
            try encoder.encode(frame) { encoded.append($0) }
        }
        try encoder.flush { encoded.append($0) }
        return encoded
    }

    private func sendWithLivepush(_ encoded: [EncodedVideoFrame], listener: Listener) async throws -> (cpu: Double, listener: Listener) {
        var configuration = SRTOutputConfiguration(host: "127.0.0.1", port: listener.port, maskedTarget: "srt://127.0.0.1:\(listener.port)")
        configuration.latencyMilliseconds = 120
        let output = SRTStreamOutput(configuration: configuration)
        try await output.start(OutputStartContext())
        let start = MonotonicClock.nowNanos(), cpu = BenchCPU.seconds(RUSAGE_SELF.rawValue)
        for (index, frame) in encoded.enumerated() {
            let due = start + Int64(index) * 33_333_333
            let wait = due - MonotonicClock.nowNanos()
            if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait)) }
            output.onEncodedFrame(frame)
        }
        await output.stop()
        return (BenchCPU.seconds(RUSAGE_SELF.rawValue) - cpu, listener)
    }

    /// `ffmpeg -i srt://127.0.0.1:PORT?mode=listener -c copy FILE`: what a receiver got, in bytes.
    final class Listener {
        let port: Int
        let path: String
        let process = Process()

        init(port: Int, writingTo path: String) throws {
            self.port = port
            self.path = path
            process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
            process.arguments = ["-hide_banner", "-nostdin", "-v", "error", "-i", "srt://127.0.0.1:\(port)?mode=listener&latency=120000",
                                 "-c", "copy", "-f", "mpegts", "-y", path]
            process.standardInput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            Thread.sleep(forTimeInterval: 0.5)
        }

        /// Waits (bounded) for the listener to see the end; the bytes it wrote.
        func finish() -> Int {
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
            if process.isRunning { process.terminate(); process.waitUntilExit() }
            return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        }
    }
}
