import ArgumentParser

/// `livepush bench`: livepush's hot paths beside memcpy, libswscale and the ffmpeg CLI in the same
/// run, printed as Markdown tables for BENCHMARKS.md.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench", abstract: "Measure conversion, capture, encode and send speed beside reference tools (memcpy, libswscale, the ffmpeg CLI).")

    @Option(help: "Which benchmarks to run (comma-separated): conversion, encode, capture (run capture under scripts/sim-camera), rtp, rtmp (needs nginx-rtmp).")
    var only: String = "conversion"

    @Option(help: "Frames per measurement.")
    var frames: Int = 300

    @Option(help: "Camera for the capture benchmark (default: the first one found).")
    var device: String?

    func run() async throws {
        let selected = Set(only.split(separator: ",").map(String.init))
        if selected.contains("conversion") {
            print(try ConversionBenchmark(frames: frames).run().markdown)
        }
        if selected.contains("encode") {
            print(try EncodeBenchmark(frames: frames).run().markdown)
        }
        if selected.contains("capture") {
            print(try CaptureBenchmark(frames: frames, device: device).run().markdown)
        }
        if selected.contains("rtp") {
            print(try await RTPBenchmark(frames: frames).run().markdown)
        }
        if selected.contains("rtmp") {
            print(try RTMPBenchmark(seconds: max(5, frames / 30)).run().markdown)
        }
    }
}
