import Capture
import Codec
import Foundation
import MediaCore
import NIOCore
import NIOPosix
import Output
import RTPOutput
import SRTP
#if canImport(Glibc)
import Glibc
#endif

/// The cost of RTP fan-out: one 720p30 2.5 Mbps encode (done once, up front) sent by 1, 2 and 4
/// ``RTPStreamOutput``s, plain and SRTP, to UDP sockets on 127.0.0.1. CPU is the event-loop
/// threads' own time (CLOCK_THREAD_CPUTIME_ID, read on each loop), so it is exactly packetize +
/// protect + sendmmsg, per frame and per receiver. Beside it, `ffmpeg -c copy -f rtp` (and
/// `srtp://`) sending the same Annex B stream, user + system time from /usr/bin/time: that
/// includes ffmpeg's start-up and H.264 parsing, so it is an upper bound for its send path.
struct RTPBenchmark {
    static let size = VideoSize(width: 1280, height: 720)
    static let bitrate = 2_500_000

    var frames: Int

    func run() async throws -> BenchTable {
        let encoded = try encode()
        let bytes = encoded.reduce(0) { $0 + $1.data.count }
        var table = BenchTable(
            title: "RTP fan-out at 720p30 \(Self.bitrate / 1000) kbit/s (\(encoded.count) frames, \(bytes * 8 * 30 / max(1, encoded.count) / 1000) kbit/s measured)",
            columns: ["sender", "receivers", "CPU µs/frame", "CPU µs/frame/receiver", "% of one core at 30 fps per receiver"])
        for keyed in [false, true] {
            for receivers in [1, 2, 4] {
                let seconds = try await measure(encoded, receivers: receivers, keyed: keyed)
                table.rows.append(row("livepush \(keyed ? "SRTP" : "RTP")", receivers: receivers, secondsPerFrame: seconds / Double(encoded.count)))
            }
        }
        let stream = try TemporaryFile(contents: encoded.flatMap(\.data))
        for keyed in [false, true] {
            let seconds = try await measureFFmpeg(path: stream.path, keyed: keyed)
            table.rows.append(row("ffmpeg -c copy -f rtp \(keyed ? "(SRTP)" : "")", receivers: 1, secondsPerFrame: seconds / Double(encoded.count)))
        }
        return table
    }

    private func row(_ name: String, receivers: Int, secondsPerFrame: Double) -> [String] {
        let perReceiver = secondsPerFrame / Double(receivers)
        return [name, "\(receivers)", String(format: "%.1f", secondsPerFrame * 1e6), String(format: "%.1f", perReceiver * 1e6),
                String(format: "%.3f %%", perReceiver * 30 * 100)]
    }

    private func encode() throws -> [EncodedVideoFrame] {
        let video = SyntheticVideo(width: Self.size.width, height: Self.size.height)
        let encoder = try VideoEncoder(settings: VideoEncoderSettings(
            width: Self.size.width, height: Self.size.height, bitrateBitsPerSecond: Self.bitrate, keyframeIntervalSeconds: 2))
        var encoded: [EncodedVideoFrame] = []
        for number in 0..<frames {
            guard let frame = try video.frame(number: number) else { continue }
            try encoder.encode(frame) { encoded.append($0) }
        }
        try encoder.flush { encoded.append($0) }
        return encoded
    }

    private func measure(_ encoded: [EncodedVideoFrame], receivers: Int, keyed: Bool) async throws -> Double {
        let key = keyed ? SRTPKeyingMaterial.random() : nil
        var sinks: [Channel] = []
        var outputs: [RTPStreamOutput] = []
        for _ in 0..<receivers {
            let sink = try await Self.sink()
            sinks.append(sink)
            let output = try RTPStreamOutput(configuration: RTPOutputConfiguration(
                destination: try RTPDestination(host: "127.0.0.1", port: sink.localAddress?.port ?? 0), keyingMaterial: key))
            try await output.start(OutputStartContext())
            outputs.append(output)
        }
        let before = try await Self.eventLoopCPUSeconds()
        for (index, frame) in encoded.enumerated() {
            for output in outputs { output.onEncodedFrame(frame) }
            // One frame in flight per output: the measurement never drops.
            let deadline = MonotonicClock.nowNanos() + 1_000_000_000
            while outputs.contains(where: { $0.senderStatistics.framesSent <= index }), MonotonicClock.nowNanos() < deadline {
                usleep(100)
            }
        }
        let after = try await Self.eventLoopCPUSeconds()
        for output in outputs { await output.stop() }
        for sink in sinks { try? await sink.close() }
        guard outputs.allSatisfy({ $0.senderStatistics.framesSent == encoded.count }) else {
            throw ValidationErrorText("an RTP output did not send every frame: \(outputs.map(\.senderStatistics))")
        }
        return after - before
    }

    /// Receivers read on their own thread, so their CPU is not counted as the sender's.
    private static let sinkGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// A UDP receiver on 127.0.0.1 that reads and discards.
    private static func sink() async throws -> Channel {
        try await DatagramBootstrap(group: sinkGroup).bind(host: "127.0.0.1", port: 0).get()
    }

    /// CPU seconds used so far by every thread of NIO's shared event loop group, read on each thread.
    private static func eventLoopCPUSeconds() async throws -> Double {
        var total = 0.0
        for loop in MultiThreadedEventLoopGroup.singleton.makeIterator() {
            total += try await loop.submit {
                var now = timespec()
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
                return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
            }.get()
        }
        return total
    }

    /// `ffmpeg -f h264 -i STREAM -c copy -f rtp` under /usr/bin/time; user + system seconds.
    private func measureFFmpeg(path: String, keyed: Bool) async throws -> Double {
        let sink = try await Self.sink()
        defer { sink.close(promise: nil) }
        let port = sink.localAddress?.port ?? 0
        let key = SRTPKeyingMaterial.random().base64
        let output = keyed ? ["-srtp_out_suite", "AES_CM_128_HMAC_SHA1_80", "-srtp_out_params", key, "srtp://127.0.0.1:\(port)"]
                           : ["rtp://127.0.0.1:\(port)"]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "cpu %U %S", "ffmpeg", "-hide_banner", "-nostdin", "-v", "error", "-f", "h264", "-framerate", "30",
                             "-i", path, "-c", "copy", "-f", "rtp"] + output
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let line = text.split(separator: "\n").last(where: { $0.hasPrefix("cpu ") }) else {
            throw ValidationErrorText("ffmpeg -f rtp failed: \(text.suffix(500))")
        }
        return line.split(separator: " ").dropFirst().compactMap { Double($0) }.reduce(0, +)
    }
}

/// A file removed when the value goes away (the Annex B stream ffmpeg reads).
private final class TemporaryFile {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("livepush-bench-\(UUID().uuidString).h264").path

    init(contents: [UInt8]) throws { try Data(contents).write(to: URL(fileURLWithPath: path)) }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
