import Capture
import Foundation
import MediaCore

/// The `rpicam:N` source's read path (pipe → stride-stripped copy into a pooled frame) beside
/// `ffmpeg -f rawvideo -i pipe: -f null -` reading the same bytes, unpaced. No Pi needed: the
/// "rpicam-vid" here is a shell loop that `cat`s test-pattern frames in rpicam-vid's yuv420 layout
/// (1000 px wide: Y rows padded to 1024 bytes), put first on PATH for this process only.
///
/// CPU is user+system per frame: livepush's reading thread (RUSAGE_THREAD) and ffmpeg alone
/// (`/usr/bin/time` around it); the producer's `cat` is in neither. ffmpeg has no stride option, so
/// it is given the padded width and keeps the padding; livepush strips it.
///
///     swift build -c release && .build/release/livepush-bench --only rpicam
struct RpicamBenchmark {
    var frames: Int

    func run() throws -> BenchTable {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("livepush-bench-rpicam-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var table = BenchTable(title: "rpicam:N read path vs ffmpeg -f rawvideo -i pipe: (\(frames) frames each, unpaced)",
                               columns: ["size", "livepush CPU ms/frame", "ffmpeg CPU ms/frame", "livepush vs ffmpeg CPU"])
        for size in [VideoSize(width: 1000, height: 562), VideoSize(width: 1920, height: 1080)] {
            let framesFile = directory.appendingPathComponent("frames-\(size)").path
            try writeFrames(size: size, to: framesFile)
            let producer = directory.appendingPathComponent("rpicam-vid").path
            try "#!/bin/sh\nwhile :; do cat '\(framesFile)' || exit 0; done\n".write(toFile: producer, atomically: true, encoding: .utf8)
            chmod(producer, 0o755)
            setenv("PATH", directory.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), 1)
            let ours = try measureLivepush(size: size)
            let theirs = try measureFFmpeg(size: size, producer: producer)
            func ms(_ value: Double) -> String { String(format: "%.3f", value * 1000) }
            table.rows.append(["\(size)", ms(ours), ms(theirs), String(format: "%.2f×", ours / theirs)])
        }
        return table
    }

    /// 30 test-pattern frames in rpicam-vid's layout (``RpicamFrameLayout``), padding zeroed.
    private func writeFrames(size: VideoSize, to path: String) throws {
        let layout = RpicamFrameLayout(width: size.width, height: size.height)
        let source = TestPatternSource()
        _ = try source.open(config: CaptureConfig(size: size, framesPerSecond: 240))
        let pool = FrameBufferPool(capacity: 2)
        var bytes = [UInt8](repeating: 0, count: layout.frameBytes * 30)
        var written = 0
        while written < 30 {
            guard case let .frame(frame) = try source.read(pool: pool) else { continue }
            let base = written * layout.frameBytes
            let planes = [(frame.buffer.dataY, frame.buffer.strideY, size.width, size.height, layout.lumaStride, 0),
                          (frame.buffer.dataU, frame.buffer.strideU, frame.buffer.chromaWidth, layout.chromaHeight, layout.chromaStride,
                           layout.lumaStride * size.height),
                          (frame.buffer.dataV, frame.buffer.strideV, frame.buffer.chromaWidth, layout.chromaHeight, layout.chromaStride,
                           layout.lumaStride * size.height + layout.chromaStride * layout.chromaHeight)]
            for (data, stride, rowBytes, rows, outStride, offset) in planes {
                bytes.withUnsafeMutableBufferPointer { out in
                    for row in 0..<rows { memcpy(out.baseAddress! + base + offset + row * outStride, data + row * stride, rowBytes) }
                }
            }
            written += 1
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    private func measureLivepush(size: VideoSize) throws -> Double {
        let source = RpicamSource(cameraIndex: 0, stallTimeoutSeconds: 10)
        _ = try source.open(config: CaptureConfig(size: size, framesPerSecond: 30))
        defer { source.close() }
        let pool = FrameBufferPool(capacity: 4)
        let deadline = MonotonicClock.nowNanos() + 60_000_000_000
        while MonotonicClock.nowNanos() < deadline, case .idle = try source.read(pool: pool) {}
        let start = BenchCPU.seconds(BenchCPU.thread)
        var delivered = 0
        while delivered < frames, MonotonicClock.nowNanos() < deadline {
            if case .frame = try source.read(pool: pool) { delivered += 1 }
        }
        return (BenchCPU.seconds(BenchCPU.thread) - start) / Double(max(1, delivered))
    }

    private func measureFFmpeg(size: VideoSize, producer: String) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "'\(producer)' | /usr/bin/time -f 'cpu %U %S' ffmpeg -hide_banner -nostdin -v error -f rawvideo "
                             + "-pix_fmt yuv420p -video_size \(RpicamFrameLayout(width: size.width, height: size.height).lumaStride)x\(size.height) "
                             + "-i pipe: -frames:v \(frames) -f null - 2>&1 | grep '^cpu '"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let fields = text.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard fields.count == 2 else { throw ValidationErrorText("ffmpeg rawvideo run gave no timing: \(text)") }
        return (fields[0] + fields[1]) / Double(frames)
    }
}
