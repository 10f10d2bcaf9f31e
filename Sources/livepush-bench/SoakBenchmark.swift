import Foundation

/// `livepush serve` left running in the serve benchmark's setup (``ServeUnderTest``: 720p30 x264,
/// RTMP to a private nginx-rtmp, one aiortc WHEP viewer) for `seconds`, its resident set sampled
/// every `sampleSeconds`:
///
///     livepush bench --only soak --soak 1h [--sample-every 10s]
///
/// Prints RSS and its anonymous part (RssAnon: heap, stacks, buffers, where a leak would show),
/// samples at every tenth of the run, and the growth from the second minute to the last minute
/// (the goal: no more than 5 % over an hour). Each of the two is the mean of that minute's
/// samples: RSS also holds mapped files, which `serve` releases after set-up work and at least
/// once a minute (ProcessFootprint), so single samples move by a few MiB either way.
struct SoakBenchmark {
    var seconds: Int
    var sampleSeconds: Int

    private typealias Sample = (elapsed: Double, rssKiB: Int, anonymousKiB: Int, cpuSeconds: Double)

    func run() throws -> BenchTable {
        guard seconds >= 180 else { throw ValidationErrorText("--soak must be at least 3m: growth is measured from the second minute to the last") }
        let serve = try ServeUnderTest(lifetimeSeconds: seconds + 240)
        defer { serve.stop() }
        let viewer = try serve.startViewer(frames: (seconds + 30) * 30, timeoutSeconds: seconds + 90)
        defer { viewer.stop() }
        let started = Date()
        var samples: [Sample] = []
        while true {
            let elapsed = Date().timeIntervalSince(started)
            guard let sample = serve.serve.sample, let anonymous = serve.serve.anonymousRSSKiB else {
                throw ValidationErrorText("livepush serve exited during the soak: \(serve.serve.output.suffix(2000))")
            }
            samples.append((elapsed, sample.residentBytes / 1024, anonymous, sample.cpuSeconds))
            guard elapsed < Double(seconds) else { break }
            Thread.sleep(forTimeInterval: min(Double(sampleSeconds), Double(seconds) - elapsed + 0.01))
        }
        let outputs = (try? serve.status().cameras.first?.outputs) ?? nil
        let delivered = outputs.map { $0.map { "\($0.id) \($0.state), \($0.framesSent) frames sent, \($0.reconnects) reconnects" }
            .joined(separator: "; ") } ?? "status not available"
        let viewerAlive = viewer.process.isRunning

        var table = BenchTable(title: "livepush serve soak: \(seconds) s, RSS sampled every \(sampleSeconds) s (\(samples.count) samples)",
                               columns: ["elapsed", "RSS MiB", "anonymous MiB", "CPU % of one core since the previous row"])
        let secondMinute = samples.filter { $0.elapsed >= 60 && $0.elapsed < 120 }
        let lastMinute = samples.filter { $0.elapsed >= Double(seconds) - 60 }
        guard let atMinute = secondMinute.first, let last = samples.last, !lastMinute.isEmpty else { return table }
        // The start, one minute, then the first sample past each tenth of the run, and the end.
        var shown = [samples[0], atMinute]
        for tenth in 1...10 {
            let mark = Double(seconds) * Double(tenth) / 10
            if let sample = samples.first(where: { $0.elapsed >= mark }), sample.elapsed > (shown.last?.elapsed ?? 0) { shown.append(sample) }
        }
        if shown.last?.elapsed != last.elapsed { shown.append(last) }
        for (index, sample) in shown.enumerated() {
            let previous = index > 0 ? shown[index - 1] : sample
            let cpu = sample.elapsed > previous.elapsed ? (sample.cpuSeconds - previous.cpuSeconds) / (sample.elapsed - previous.elapsed) * 100 : 0
            table.rows.append([String(format: "%.0f s", sample.elapsed), String(format: "%.1f", Double(sample.rssKiB) / 1024),
                               String(format: "%.1f", Double(sample.anonymousKiB) / 1024), index > 0 ? String(format: "%.1f", cpu) : "–"])
        }
        func growth(_ kib: (Sample) -> Int) -> String {
            let from = Double(secondMinute.map(kib).reduce(0, +)) / Double(secondMinute.count)
            let to = Double(lastMinute.map(kib).reduce(0, +)) / Double(lastMinute.count)
            return String(format: "%+.1f %% (%.1f → %.1f MiB, highest %.1f)", (to - from) / from * 100, from / 1024, to / 1024,
                          Double(samples.map(kib).max() ?? 0) / 1024)
        }
        table.rows.append(["growth, mean of the second minute → mean of the last",
                           growth(\.rssKiB), growth(\.anonymousKiB),
                           "\(delivered); viewer \(viewerAlive ? "still receiving" : "ended: " + ServeBenchmark.viewerSummary(viewer.output))"])
        return table
    }
}
