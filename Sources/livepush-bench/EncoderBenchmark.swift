import CFFmpeg
import Codec
import Foundation
import LibAV
import MediaCore

/// Encode throughput and CPU per frame for `livepush bench` (BENCHMARKS.md): livepush's encoder
/// path beside the ffmpeg CLI given the same raw frames and the same x264 parameters.
///
/// Both sides get a cycle of pre-drawn frames, so neither pays for drawing: livepush wraps the
/// pooled buffers zero-copy, ffmpeg reads the same pictures from a raw yuv420p file (its demuxing
/// and copying are part of its cost, as in a real `ffmpeg -i` pipeline).
public enum EncoderBenchmark {
    public struct Result: Sendable, CustomStringConvertible {
        public var label: String
        public var width: Int
        public var height: Int
        public var frames: Int
        public var wallSeconds: Double
        /// User + system CPU of the whole process (encoder threads included).
        public var cpuSeconds: Double
        public var encodedBytes: Int?
        /// CPU livepush spends around the encoder (AVFrame wrapping, packet copy, NAL scan,
        /// parameter-set tracking), replayed on the encoded stream and timed on its own; nil for ffmpeg.
        public var wrapperCPUSeconds: Double?

        public var framesPerSecond: Double { Double(frames) / wallSeconds }
        public var cpuMillisPerFrame: Double { cpuSeconds * 1000 / Double(frames) }

        public var description: String {
            let rate = encodedBytes.map { String(format: ", %.2f Mbps", Double($0 * 8) / (Double(frames) / 30) / 1e6) } ?? ""
            let overhead = wrapperCPUSeconds.map { String(format: ", wrapper %.3f ms/frame = %.2f%% of CPU", $0 * 1000 / Double(frames), 100 * $0 / cpuSeconds) } ?? ""
            return String(format: "%@ %dx%d: %d frames, %.1f fps, %.2f ms CPU/frame (%.2fs CPU, %.2fs wall)%@%@",
                          label, width, height, frames, framesPerSecond, cpuMillisPerFrame, cpuSeconds, wallSeconds, rate, overhead)
        }
    }

    /// Distinct frames drawn ahead of time and cycled.
    static let cycleLength = 30

    /// The settings both sides use: 2.5 Mbps CBR-like, keyframe every 2 s; with libx264 veryfast/zerolatency.
    public static func settings(width: Int, height: Int, encoderName: String = "libx264") -> VideoEncoderSettings {
        var settings = VideoEncoderSettings(width: width, height: height, framesPerSecond: 30, bitrateBitsPerSecond: 2_500_000)
        settings.encoderName = encoderName
        return settings
    }

    /// Encodes `frames` frames with livepush's ``VideoEncoder`` and measures this process's CPU.
    public static func runLivepush(width: Int, height: Int, frames: Int, encoderName: String = "libx264") throws -> Result {
        let video = SyntheticVideo(width: width, height: height, poolCapacity: cycleLength)
        let cycle = try (0..<cycleLength).map { number -> VideoFrame in
            guard let frame = try video.frame(number: number) else { throw CodecError.media(.poolExhausted(capacity: cycleLength)) }
            return frame
        }
        let encoder = try VideoEncoder(settings: settings(width: width, height: height, encoderName: encoderName))
        var encoded = [EncodedVideoFrame]()
        encoded.reserveCapacity(frames)
        let cpuBefore = processCPUSeconds(), wallBefore = MonotonicClock.nowNanos()
        for number in 0..<frames {
            var frame = cycle[number % cycleLength]
            frame.captureTimeNanos = video.captureTimeNanos(frameNumber: number)
            try encoder.encode(frame) { encoded.append($0) }
        }
        try encoder.flush { encoded.append($0) }
        let wall = Double(MonotonicClock.nowNanos() - wallBefore) / 1e9
        let cpu = processCPUSeconds() - cpuBefore
        return Result(label: "livepush", width: width, height: height, frames: frames, wallSeconds: wall, cpuSeconds: cpu,
                      encodedBytes: encoded.reduce(0) { $0 + $1.data.count },
                      wrapperCPUSeconds: try replayWrapperWork(cycle: cycle, encoded: encoded))
    }

    /// Repeats what ``VideoEncoder`` does per frame besides calling libavcodec, on this thread's CPU clock.
    static func replayWrapperWork(cycle: [VideoFrame], encoded: [EncodedVideoFrame]) throws -> Double {
        let before = threadCPUSeconds()
        var sink = 0
        for (index, frame) in encoded.enumerated() {
            var avFrame = try cycle[index % cycle.count].buffer.makeAVFrame() as UnsafeMutablePointer<AVFrame>?
            av_frame_free(&avFrame)
            let data = frame.data.withUnsafeBufferPointer { [UInt8]($0) }
            let ranges = AnnexB.nalUnitRanges(in: data)
            if frame.isKeyFrame { sink += ParameterSets(codec: .h264, annexB: data, nalUnitRanges: ranges).sps.count }
            sink += ranges.count
        }
        withExtendedLifetime(sink) {} // keeps the replay from being optimised away
        return threadCPUSeconds() - before
    }

    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The ffmpeg arguments equivalent to ``settings(width:height:encoderName:)``: x264's own
    /// options for libx264, the bitrate and keyframe interval for another encoder (h264_v4l2m2m).
    public static func ffmpegArguments(input: String, width: Int, height: Int, encoderName: String = "libx264") -> [String] {
        let encoder = encoderName == "libx264"
            ? ["-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-profile:v", "high",
               "-b:v", "2500k", "-maxrate", "2500k", "-bufsize", "2500k", "-g", "60", "-bf", "0", "-forced-idr", "1",
               "-x264-params", "scenecut=0:open-gop=0:repeat-headers=1"]
            : ["-c:v", encoderName, "-b:v", "2500k", "-g", "60"]
        return ["-hide_banner", "-loglevel", "error", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-s", "\(width)x\(height)", "-r", "30",
                "-i", input] + encoder + ["-f", "null", "-"]
    }

    /// Writes the same frames as raw yuv420p and runs the ffmpeg CLI on them under `/usr/bin/time`.
    public static func runFFmpeg(width: Int, height: Int, frames: Int, ffmpeg: String = "/usr/bin/ffmpeg",
                                 encoderName: String = "libx264") throws -> Result {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("livepush-bench-\(getpid())-\(width)x\(height).yuv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let video = SyntheticVideo(width: width, height: height, poolCapacity: 2)
        var cycle = Data()
        for number in 0..<cycleLength {
            guard let frame = try video.frame(number: number) else { throw CodecError.media(.poolExhausted(capacity: 2)) }
            cycle.append(contentsOf: frame.buffer.packedBytes())
        }
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw CodecError.invalidSetting(setting: "bench-file", value: path, reason: "cannot write the raw input")
        }
        for _ in 0..<(frames / cycleLength) { file.write(cycle) }
        let remainder = frames % cycleLength
        if remainder > 0 { file.write(cycle.prefix(cycle.count / cycleLength * remainder)) }
        try file.close()

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "%U %S %e", ffmpeg] + ffmpegArguments(input: path, width: width, height: height, encoderName: encoderName)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = text.split(whereSeparator: \.isNewline).last?.split(separator: " ").compactMap { Double($0) } ?? []
        guard process.terminationStatus == 0, fields.count == 3 else {
            throw CodecError.invalidSetting(setting: "ffmpeg", value: ffmpeg, reason: "run failed: \(text)")
        }
        return Result(label: "ffmpeg", width: width, height: height, frames: frames, wallSeconds: fields[2],
                      cpuSeconds: fields[0] + fields[1], encodedBytes: nil, wrapperCPUSeconds: nil)
    }

    /// Both sides at 720p30 and 1080p30.
    public static func compare(frames: Int = 300) throws -> [Result] {
        var results = [Result]()
        for (width, height) in [(1280, 720), (1920, 1080)] {
            results.append(try runLivepush(width: width, height: height, frames: frames))
            results.append(try runFFmpeg(width: width, height: height, frames: frames))
        }
        return results
    }

    /// getrusage(RUSAGE_SELF) user + system seconds.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
