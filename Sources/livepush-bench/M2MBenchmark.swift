import Codec
import Foundation

/// livepush's encoder path through the simulated V4L2 M2M H.264 encoder (scripts/v4l2sim's
/// bcm2835-codec model) beside `ffmpeg -c:v h264_v4l2m2m` through the same simulator, fed the same
/// raw frames (``EncoderBenchmark``), at 720p30 and 1080p30. Run it under the simulator:
///
///     LIVEPUSH_SIM_ENCODERS=/dev/video-sim-enc0 scripts/sim-camera -- .build/release/livepush-bench --only m2m
///
/// CPU per frame is the whole process's user + system time, so on both sides it includes the
/// simulator's libx264 encoding inside the process (the part a Pi's VPU does): the difference
/// between the two columns is what each side spends around the encoder, not what a Pi would show.
struct M2MBenchmark {
    static let encoder = "h264_v4l2m2m"
    var frames: Int

    func run() throws -> BenchTable {
        let environment = ProcessInfo.processInfo.environment
        guard environment["LD_PRELOAD"]?.contains("v4l2sim") == true, let nodes = environment["LIVEPUSH_SIM_ENCODERS"], !nodes.isEmpty else {
            throw ValidationErrorText("run under the simulated encoder: LIVEPUSH_SIM_ENCODERS=/dev/video-sim-enc0 scripts/sim-camera -- livepush-bench --only m2m")
        }
        var table = BenchTable(title: "H.264 through the simulated M2M encoder (\(nodes), x264 inside the simulator; \(frames) frames)",
                               columns: ["encoder path", "size", "fps", "CPU ms/frame (simulator's x264 included)", "livepush's own CPU around the encoder"])
        for (width, height) in [(1280, 720), (1920, 1080)] {
            for result in [try EncoderBenchmark.runLivepush(width: width, height: height, frames: frames, encoderName: Self.encoder),
                           try EncoderBenchmark.runFFmpeg(width: width, height: height, frames: frames, encoderName: Self.encoder)] {
                table.rows.append(["\(result.label) \(Self.encoder)", "\(width)x\(height)", String(format: "%.1f", result.framesPerSecond),
                                   String(format: "%.2f", result.cpuMillisPerFrame),
                                   result.wrapperCPUSeconds.map { String(format: "%.3f ms/frame", $0 * 1000 / Double(result.frames)) } ?? "—"])
            }
        }
        return table
    }
}
