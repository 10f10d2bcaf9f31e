import Foundation
import Harness

/// `livepush serve` left running for `seconds` (``ServeUnderTest``), its resident set sampled every
/// `sampleSeconds`, WHEP viewers joining and leaving and the RTMP destination restarting on a
/// printed ``SoakSchedule``:
///
///     livepush-bench --only soak --soak 1h [--sample-every 60s] [--soak-setup camera|testpattern]
///                    [--rtmp-restart-every 5m] [--soak-csv PATH]
///
/// `--soak-setup camera` (the default) is issue 28's long run: the simulated camera, three
/// renditions, RTMP to nginx-rtmp, a recording and two WHEP viewers, the second one joining and
/// leaving (``ServeSetup/simulatedCamera``); `testpattern` is the earlier soak (one encode, one viewer).
/// Every sample prints one Markdown row as it is taken (and one CSV line with `--soak-csv`): RSS,
/// its anonymous part (RssAnon: heap, stacks, buffers, where a leak would show), CPU since the
/// previous sample, the viewers attached and whether nginx is up. At the end: growth once settled
/// (``SoakGrowth``: the trend of a line fitted through every sample from five minutes on, goal under
/// 2 %, beside the sample at five minutes against the last and the highest), and every output's
/// state, frames and reconnects from /api/status.
struct SoakBenchmark {
    var seconds: Int
    var sampleSeconds: Int
    var setup: ServeSetup
    var rtmpRestartSeconds: Int
    var csvPath: String?

    private struct Sample {
        var elapsed: Double
        var rssKiB: Int
        var anonymousKiB: Int
        var cpuSeconds: Double
        var viewers: String
        var rtmpUp: Bool
    }

    func run() throws -> BenchTable {
        guard seconds >= 60 else { throw ValidationErrorText("--soak must be at least 1m") }
        let schedule = SoakSchedule(secondViewer: setup == .simulatedCamera, rtmpRestartSeconds: rtmpRestartSeconds)
        guard rtmpRestartSeconds == 0 || rtmpRestartSeconds > schedule.rtmpDownSeconds * 2 else {
            throw ValidationErrorText("--rtmp-restart-every must be longer than \(schedule.rtmpDownSeconds * 2) s: nginx-rtmp is down \(schedule.rtmpDownSeconds) s each time")
        }
        let columns = ["elapsed", "RSS MiB", "anonymous MiB", "CPU % of one core since the previous row", "WHEP viewers", "nginx-rtmp"]
        print("livepush-bench soak: \(setup.rawValue) setup for \(seconds) s, RSS sampled every \(sampleSeconds) s; \(schedule.description)")
        print(BenchTable(title: "livepush serve soak samples", columns: columns).markdown, terminator: "")
        fflush(nil)  // every C stream: stdout is shared mutable state to Swift 6
        let csv = try csvPath.map { path in
            guard FileManager.default.createFile(atPath: path, contents: Data("elapsed_s,rss_kib,anon_kib,cpu_s,viewers,rtmp_up\n".utf8)) else {
                throw ValidationErrorText("cannot create \(path)")
            }
            return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        }
        defer { try? csv?.close() }

        let serve = try ServeUnderTest(lifetimeSeconds: seconds + 240, setup: setup)
        defer { serve.stop() }
        let viewerA = try serve.startViewer(frames: (seconds + 30) * 30, timeoutSeconds: seconds + 90)
        defer { viewerA.stop() }
        var viewerB: BackgroundProcess?
        defer { viewerB?.stop() }
        var joins = 0, rtmpStops = 0, rtmpUp = true
        var samples: [Sample] = []
        let started = Date()
        while true {
            let elapsed = Date().timeIntervalSince(started)
            let wantB = schedule.viewerBPresent(at: elapsed)
            if wantB, viewerB == nil {
                viewerB = try serve.startViewer(frames: (seconds + 30) * 30, timeoutSeconds: seconds + 90)
                joins += 1
            } else if !wantB, let leaving = viewerB {
                leaving.stop()
                viewerB = nil
            }
            let final = elapsed >= Double(seconds)
            // No stop at the last sample: it and the status read after it see the destination up.
            let wantDown = !final && schedule.rtmpDown(at: elapsed)
            if wantDown, rtmpUp {
                serve.nginx.kill()
                rtmpUp = false
                rtmpStops += 1
            } else if !wantDown, !rtmpUp {
                try serve.nginx.start()
                rtmpUp = true
            }
            if final || elapsed >= Double(samples.count * sampleSeconds) {
                guard let stats = serve.serve.sample, let anonymous = serve.serve.anonymousRSSKiB else {
                    throw ValidationErrorText("livepush serve exited during the soak: \(serve.serve.output.suffix(2000))")
                }
                let viewers = [viewerA.isRunning ? "A" : "A (ended)"] + (viewerB.map { $0.isRunning ? ["B"] : ["B (ended)"] } ?? [])
                let sample = Sample(elapsed: elapsed, rssKiB: stats.residentBytes / 1024, anonymousKiB: anonymous, cpuSeconds: stats.cpuSeconds,
                                    viewers: viewers.joined(separator: "+"), rtmpUp: rtmpUp)
                let cpu = samples.last.map { (sample.cpuSeconds - $0.cpuSeconds) / max(0.001, sample.elapsed - $0.elapsed) * 100 }
                samples.append(sample)
                print("| " + [String(format: "%.0f s", sample.elapsed), String(format: "%.1f", Double(sample.rssKiB) / 1024),
                              String(format: "%.1f", Double(sample.anonymousKiB) / 1024), cpu.map { String(format: "%.1f", $0) } ?? "–",
                              sample.viewers, sample.rtmpUp ? "up" : "down"].joined(separator: " | ") + " |")
                fflush(nil)
                csv?.write(Data((String(format: "%.1f,%d,%d,%.2f,", sample.elapsed, sample.rssKiB, sample.anonymousKiB, sample.cpuSeconds)
                                 + "\(sample.viewers),\(sample.rtmpUp ? 1 : 0)\n").utf8))
            }
            if final { break }
            Thread.sleep(forTimeInterval: min(1, Double(seconds) - elapsed + 0.01))
        }

        let outputs = (try? serve.status().cameras.first?.outputs) ?? nil
        let delivered = outputs.map { $0.map { "\($0.id) \($0.state), \($0.framesSent) frames sent, \($0.reconnects) reconnects" }
            .joined(separator: "; ") } ?? "status not available"
        var table = BenchTable(title: "livepush serve soak (\(setup.rawValue)): \(seconds) s, \(samples.count) samples every \(sampleSeconds) s",
                               columns: ["figure", "RSS", "anonymous", "what happened"])
        func growth(_ kib: KeyPath<Sample, Int>) -> String {
            SoakGrowth(samples: samples.map { ($0.elapsed, $0[keyPath: kib]) }, runSeconds: Double(seconds))?.description ?? "no sample after settling"
        }
        table.rows.append(["growth once settled (from 5 min, or half the run when shorter): fitted trend; sample → last and → highest",
                           growth(\.rssKiB), growth(\.anonymousKiB),
                           "\(delivered); viewer B joins: \(joins); nginx-rtmp stops: \(rtmpStops); viewer A "
                           + (viewerA.isRunning ? "still receiving" : "ended: " + ServeBenchmark.viewerSummary(viewerA.output))])
        return table
    }
}
