import ArgumentParser
import Foundation
import MediaCore

/// `livepush-bench`: livepush's hot paths beside memcpy, libswscale and the ffmpeg CLI in the same
/// run, printed as Markdown tables for BENCHMARKS.md. Its own executable, so the product binary
/// carries no peer orchestration; it drives the `livepush` built beside it (``LivepushExecutable``).
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "livepush-bench", abstract: "Measure conversion, capture, encode and send speed beside reference tools (memcpy, libswscale, the ffmpeg CLI).")

    @Option(help: "Which benchmarks to run (comma-separated): conversion, overlay, encode, capture (run capture under scripts/sim-camera), rpicam (the rpicam:N read path against a stand-in producer), rtp, rtmp (needs nginx-rtmp), srt (an ffmpeg SRT listener), srt-send (the SRT send path alone on one encoded stream), renditions (three renditions against three ffmpegs and one ffmpeg with split; needs nginx-rtmp), serve and soak (need nginx-rtmp and the aiortc venv, scripts/test-venv), webrtc (needs the aiortc venv), overload (CPU adaptation on one core beside ffmpeg; needs nginx-rtmp), ondemand (an on_demand camera's idle CPU and start times beside the camera always on; needs the aiortc venv), m2m (the simulated M2M encoder beside ffmpeg -c:v h264_v4l2m2m; run under scripts/sim-camera with LIVEPUSH_SIM_ENCODERS), peers (the standard jobs beside ffmpeg and GStreamer; needs nginx-rtmp and gstreamer1.0-plugins-ugly), multitrack (three renditions as tracks of one enhanced-RTMP connection against three connections, and ffmpeg's three; an in-process receiver announcing multitrack), srt-failover (an SRT output's move to its backup ingest when the primary's receiver is killed, and back; needs srt-live-transmit), rss-check (livepush's peak RSS on the standard jobs against --baseline; fails on growth), rss-baseline (measures them and rewrites --baseline).")
    var only: String = "conversion"

    @Option(help: "Alternating runs per tool and job for peers, multitrack, rss-check and rss-baseline (the median is reported); repeats for srt-failover.")
    var rounds: Int = 3

    @Option(help: "The peak-RSS baseline rss-check compares with and rss-baseline rewrites.")
    var baseline: String = "bench/rss-baseline.json"

    @Option(help: "Frames per measurement.")
    var frames: Int = 300

    @Option(help: "How long the soak benchmark runs `livepush serve` (e.g. 3m, 1h).")
    var soak: String = "1h"

    @Option(help: "How often the soak benchmark samples RSS (e.g. 60s).")
    var sampleEvery: String = "60s"

    @Option(help: "What the soak benchmark serves: camera (issue 28's long run: the V4L2 simulator's camera, three renditions, RTMP, a recording, two WHEP viewers, one joining and leaving) or testpattern (one encode, one viewer).")
    var soakSetup: String = ServeSetup.simulatedCamera.rawValue

    @Option(help: "Restart the soak's RTMP destination (nginx-rtmp: killed, started again 5 s later) this often (e.g. 5m; default: never).")
    var rtmpRestartEvery: String?

    @Option(help: "Where the soak benchmark writes its samples as CSV (elapsed_s,rss_kib,anon_kib,cpu_s,viewers,rtmp_up), one line as each is taken.")
    var soakCsv: String?

    @Option(help: "Camera for the capture benchmark (default: the first one found).")
    var device: String?

    @Option(help: "Python with aiortc for the webrtc benchmark (default: the repository's .build-venv).")
    var python: String?

    func run() async throws {
        BenchInterruption.endDescendantsOnSignal()
        let selected = Set(only.split(separator: ",").map(String.init))
        let drivesLivepush = !selected.isDisjoint(with: ["rtmp", "srt", "webrtc", "serve", "soak", "overload", "ondemand", "renditions",
                                                          "peers", "multitrack", "srt-failover", "rss-check", "rss-baseline"])
        if drivesLivepush && !FileManager.default.isExecutableFile(atPath: LivepushExecutable.path) {
            throw ValidationError("no livepush binary at \(LivepushExecutable.path): build both (`make bench`, or swift build -c release)")
        }
        if selected.contains("conversion") {
            print(try ConversionBenchmark(frames: frames).run().markdown)
        }
        if selected.contains("overlay") {
            print(try OverlayBenchmark(frames: frames).run().markdown)
        }
        if selected.contains("encode") {
            print(try EncodeBenchmark(frames: frames).run().markdown)
        }
        if selected.contains("capture") {
            print(try CaptureBenchmark(frames: frames, device: device).run().markdown)
        }
        if selected.contains("rpicam") {
            print(try RpicamBenchmark(frames: frames).run().markdown)
        }
        if selected.contains("rtp") {
            print(try await RTPBenchmark(frames: frames).run().markdown)
        }
        if selected.contains("rtmp") {
            print(try PushBenchmark(transport: .rtmp, seconds: max(5, frames / 30)).run().markdown)
        }
        if selected.contains("renditions") {
            print(try RenditionBenchmark(seconds: max(1, frames / 30)).run().markdown)
        }
        if selected.contains("srt-send") {
            print(try await SRTSendBenchmark(frames: frames).run().markdown)
        }
        if selected.contains("srt") {
            print(try PushBenchmark(transport: .srt, seconds: max(5, frames / 30)).run().markdown)
        }
        if selected.contains("webrtc") {
            for table in try WebRTCBenchmark(seconds: max(10, frames / 30), python: python).run() { print(table.markdown) }
        }
        if selected.contains("serve") {
            print(try ServeBenchmark(seconds: max(5, frames / 30)).run().markdown)
        }
        if selected.contains("overload") {
            print(try OverloadBenchmark(seconds: max(10, frames / 10)).run().markdown)
        }
        if selected.contains("ondemand") {
            print(try OnDemandBenchmark(seconds: max(5, frames / 30)).run().markdown)
        }
        if selected.contains("m2m") {
            print(try M2MBenchmark(frames: frames).run().markdown)
        }
        if selected.contains("peers") {
            print(try PeersBenchmark(rounds: max(1, rounds)).run().markdown)
        }
        if selected.contains("multitrack") {
            print(try MultitrackBenchmark(rounds: max(1, rounds)).run().markdown)
        }
        if selected.contains("srt-failover") {
            print(try SRTFailoverBenchmark(repeats: max(1, rounds)).run().markdown)
        }
        if selected.contains("rss-baseline") {
            var file = (try? RSSBaseline.load(baseline)) ?? RSSBaseline(tolerancePercent: 5, note: "", peakRSSKiB: [:])
            file.peakRSSKiB = try RSSBaseline.measure(rounds: max(1, rounds))
            try file.save(baseline)
            print("livepush-bench: wrote \(baseline): \(file.peakRSSKiB.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value) KiB" }.joined(separator: ", "))")
        }
        if selected.contains("rss-check") {
            try checkRSS()
        }
        if selected.contains("soak") {
            let seconds = try DurationParser.seconds(parsing: soak), every = try DurationParser.seconds(parsing: sampleEvery)
            guard let setup = ServeSetup(rawValue: soakSetup) else {
                throw ValidationError("--soak-setup must be one of \(ServeSetup.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let restart = try rtmpRestartEvery.map(DurationParser.seconds(parsing:)) ?? 0
            print(try SoakBenchmark(seconds: Int(seconds), sampleSeconds: max(1, Int(every)), setup: setup,
                                    rtmpRestartSeconds: Int(restart), csvPath: soakCsv).run().markdown)
        }
    }

    /// Measures the standard jobs and fails, naming each job and figure, when one grew past the baseline.
    private func checkRSS() throws {
        let file = try RSSBaseline.load(baseline)
        let measured = try RSSBaseline.measure(rounds: max(1, rounds))
        for (job, kib) in measured.sorted(by: { $0.key < $1.key }) {
            let base = file.peakRSSKiB[job].map { RSSBaseline.mebibytes($0) } ?? "none"
            print("\(job): peak RSS \(RSSBaseline.mebibytes(kib)) (baseline \(base))")
        }
        let (grown, unknown) = file.check(measured)
        for growth in grown {
            FileHandle.standardError.write(Data("livepush-bench: \(growth.description), over the \(file.tolerancePercent) % allowed (\(baseline))\n".utf8))
        }
        for job in unknown {
            FileHandle.standardError.write(Data("livepush-bench: \(job) has no figure in \(baseline): run --only rss-baseline and say why in its note\n".utf8))
        }
        if !grown.isEmpty || !unknown.isEmpty { throw ExitCode.failure }
    }
}
