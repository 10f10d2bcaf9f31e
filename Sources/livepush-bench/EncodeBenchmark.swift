import Codec
import Foundation

/// libx264 veryfast/zerolatency 2.5 Mbps at 720p and 1080p through livepush's encoder beside the
/// ffmpeg CLI fed the same raw frames with the same x264 parameters (see `EncoderBenchmark`).
struct EncodeBenchmark {
    var frames: Int

    func run() throws -> BenchTable {
        var table = BenchTable(title: "H.264 encode, libx264 veryfast/zerolatency 2.5 Mbps (\(frames) frames)",
                               columns: ["encoder", "size", "fps", "CPU ms/frame", "livepush's own CPU around the encoder"])
        for result in try EncoderBenchmark.compare(frames: frames) {
            table.rows.append([result.label, "\(result.width)x\(result.height)", String(format: "%.1f", result.framesPerSecond),
                               String(format: "%.2f", result.cpuMillisPerFrame),
                               result.wrapperCPUSeconds.map { String(format: "%.3f ms/frame (%.2f %%)", $0 * 1000 / Double(result.frames),
                                                                      100 * $0 / max(result.cpuSeconds, 1e-9)) } ?? "—"])
        }
        return table
    }
}
