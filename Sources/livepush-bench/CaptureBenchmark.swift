import Capture
import Foundation
import MediaCore

/// Camera capture → I420 through livepush (V4L2Source: mmap, libyuv) beside `ffmpeg -f v4l2 …
/// -pix_fmt yuv420p -f rawvideo /dev/null` reading the same device, at 720p30 and 1080p30, YUYV
/// and MJPEG. Run it under the simulated camera, with raw 1080p at 30 fps enabled:
///
///     LIVEPUSH_SIM_0_HD_RAW_FPS=30 scripts/sim-camera -- .build/release/livepush bench --only capture
///
/// CPU is user+system time per delivered frame from getrusage: the whole livepush process
/// (RUSAGE_SELF) and the ffmpeg child (RUSAGE_CHILDREN). Both include the simulator's own
/// rendering thread, which runs inside each process; the livepush capture thread alone
/// (RUSAGE_THREAD) is shown too.
struct CaptureBenchmark {
    var frames: Int
    var device: String?

    func run() throws -> BenchTable {
        guard let path = device ?? V4L2Discovery.cameras().cameras.first?.path else {
            throw ValidationErrorText("no camera found: run under scripts/sim-camera (see `livepush devices`)")
        }
        var table = BenchTable(title: "Capture → I420 from \(path) (\(frames) frames each; CPU includes the simulator's rendering)",
                               columns: ["request", "negotiated", "livepush fps", "livepush CPU ms/frame", "capture thread ms/frame",
                                         "ffmpeg fps", "ffmpeg CPU ms/frame", "livepush vs ffmpeg CPU"])
        for size in [VideoSize(width: 1280, height: 720), VideoSize(width: 1920, height: 1080)] {
            for format in [PixelFormat.yuyv, .mjpeg] {
                let config = CaptureConfig(size: size, fallbackSizes: [], framesPerSecond: 30, preferredPixelFormat: format)
                let ours = try measureLivepush(path: path, config: config)
                let theirs = try measureFFmpeg(path: path, size: size, format: format)
                func ms(_ value: Double) -> String { String(format: "%.2f", value * 1000) }
                table.rows.append(["\(size) \(format) 30 fps", ours.format.description, String(format: "%.1f", ours.fps),
                                   ms(ours.cpuPerFrame), ms(ours.threadCpuPerFrame), String(format: "%.1f", theirs.fps),
                                   ms(theirs.cpuPerFrame), String(format: "%.2f×", ours.cpuPerFrame / theirs.cpuPerFrame)])
            }
        }
        return table
    }

    private func measureLivepush(path: String, config: CaptureConfig) throws -> (format: CaptureFormat, fps: Double, cpuPerFrame: Double, threadCpuPerFrame: Double) {
        let source = V4L2Source(selector: path)
        let format = try source.open(config: config)
        defer { source.close() }
        let pool = FrameBufferPool(capacity: 4)
        let deadline = MonotonicClock.nowNanos() + Int64(Double(frames) / max(1, format.framesPerSecond) * 3e9) + 5_000_000_000
        // the first frame starts the clock, so open and STREAMON are not counted
        while MonotonicClock.nowNanos() < deadline, case .idle = try source.read(pool: pool) {}
        let start = MonotonicClock.nowNanos(), process = Self.cpuSeconds(RUSAGE_SELF.rawValue), thread = Self.cpuSeconds(Self.rusageThread)
        var delivered = 0
        while delivered < frames, MonotonicClock.nowNanos() < deadline {
            if case .frame = try source.read(pool: pool) { delivered += 1 }
        }
        let seconds = Double(MonotonicClock.nowNanos() - start) / 1e9, count = Double(max(1, delivered))
        return (format, Double(delivered) / seconds, (Self.cpuSeconds(RUSAGE_SELF.rawValue) - process) / count,
                (Self.cpuSeconds(Self.rusageThread) - thread) / count)
    }

    private func measureFFmpeg(path: String, size: VideoSize, format: PixelFormat) throws -> (fps: Double, cpuPerFrame: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-hide_banner", "-nostdin", "-v", "error", "-f", "v4l2", "-input_format", format == .mjpeg ? "mjpeg" : "yuyv422",
                             "-video_size", "\(size)", "-framerate", "30", "-i", path, "-frames:v", "\(frames)",
                             "-pix_fmt", "yuv420p", "-f", "rawvideo", "-y", "/dev/null"]
        process.standardInput = FileHandle.nullDevice
        let children = Self.cpuSeconds(RUSAGE_CHILDREN.rawValue), start = MonotonicClock.nowNanos()
        try process.run()
        let deadline = start + Int64(Double(frames) / 30 * 3e9) + 10_000_000_000
        while process.isRunning, MonotonicClock.nowNanos() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw ValidationErrorText("ffmpeg did not finish \(frames) frames from \(path) in time")
        }
        guard process.terminationStatus == 0 else { throw ValidationErrorText("ffmpeg -f v4l2 exited \(process.terminationStatus)") }
        let seconds = Double(MonotonicClock.nowNanos() - start) / 1e9
        return (Double(frames) / seconds, (Self.cpuSeconds(RUSAGE_CHILDREN.rawValue) - children) / Double(frames))
    }

    /// Linux's RUSAGE_THREAD (1): Glibc exports it to Swift only with _GNU_SOURCE.
    static let rusageThread = __rusage_who_t(1)

    /// User plus system CPU seconds of `who` (the process, the calling thread, or waited-for children).
    static func cpuSeconds(_ who: __rusage_who_t) -> Double {
        var usage = rusage()
        getrusage(who, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
