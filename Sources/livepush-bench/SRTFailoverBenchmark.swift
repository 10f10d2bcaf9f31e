import Foundation
import Harness
import MediaCore

/// An SRT output's move to its backup ingest and back (issue 29), as `SRTFailoverTests` sets it up:
/// `livepush serve` with a test pattern at 640x360 30 fps (x264 ultrafast, 1000k, keyframe every
/// 1 s) and one srt output, `stall_timeout: 1s`, a backup, `backup_return_after: 2s`; each ingest an
/// `srt-live-transmit` listener on 127.0.0.1 writing what it receives to a file:
///
///     livepush-bench --only srt-failover [--rounds 5]     (rounds = repeats)
///
/// - failover: the primary's receiver is killed (SIGKILL: no SRT shutdown reaches livepush, as when an
///   ingest crashes or its host goes away); from then to the first byte in the backup's file (files
///   polled every 10 ms);
/// - return: a new receiver listens on the primary's port; from the moment it is bound to the first
///   byte in its file (livepush probes the primary, and moves back once it has answered for 2 s);
/// - beside each, the stream time across the move: the PTS of the first video packet on the new
///   ingest minus that of the last one on the old (ffprobe); one frame interval is 33 ms, so
///   33 ms is a move with nothing missing, and more is frames lost with the killed receiver.
///
/// Each repeat runs twice: with the tests' plain test pattern, which x264 codes far below 1000k, and
/// with the busy (noisy) one, which spends it. A stall is called once more than 64 KB
/// (`SRTSender.inFlightAllowanceBytes`) has gone unacknowledged for `stall_timeout`, so the rate the
/// encoder makes sets part of the failover time; the table gives the rate the primary received.
struct SRTFailoverBenchmark {
    var repeats: Int

    static let serveYAMLOutput = "srt: {url: 'srt://127.0.0.1:PRIMARY', stall_timeout: 1s, reconnect: {delay: 1s, max_delay: 2s}, "
        + "backup: ['srt://127.0.0.1:BACKUP'], backup_return_after: 2s}"

    static let sources = ["testpattern", "testpattern:busy"]

    func run() throws -> BenchTable {
        var table = BenchTable(title: "SRT failover to a backup ingest and back: serve, 640x360 30 fps test pattern at 1000k, stall_timeout 1s, backup_return_after 2s, "
                                   + "srt-live-transmit listeners (\(repeats) runs)",
                               columns: ["run", "source", "stream kbit/s at the primary", "primary killed → first byte at the backup (wall)", "failover, stream time (last PTS on the primary → first on the backup)",
                                         "primary listening again → first byte there (wall)", "return, stream time (last PTS on the backup → first on the primary)"])
        print("Output (serve.yaml): `- \(Self.serveYAMLOutput)`\n")
        for index in 1...repeats {
            for source in Self.sources {
                table.rows.append(["\(index)", source] + (try once(source: source)))
            }
        }
        return table
    }

    private func once(source: String) throws -> [String] {
        let directory = try TemporaryDirectory()
        let (primaryPort, backupPort) = (try LoopbackUDPSocket().port, try LoopbackUDPSocket().port)
        let (firstPrimary, backup, secondPrimary) = (directory.file("a1.ts"), directory.file("b.ts"), directory.file("a2.ts"))
        let primaryListener = try Self.listener(port: primaryPort, writingTo: firstPrimary)
        let backupListener = try Self.listener(port: backupPort, writingTo: backup)
        defer { backupListener.stop() }
        let httpPort = Int.random(in: 40001...50000)
        let config = directory.file("serve.yaml")
        let output = Self.serveYAMLOutput.replacingOccurrences(of: "PRIMARY", with: "\(primaryPort)").replacingOccurrences(of: "BACKUP", with: "\(backupPort)")
        try ServeUnderTest.config(port: httpPort, camera: ["source: \(source)", "size: 640x360", "fps: 30",
                                                           "encoder: {bitrate: 1000k, keyint: 1s, preset: ultrafast}"], outputs: [output])
            .write(toFile: config, atomically: true, encoding: .utf8)
        let serve = try BackgroundProcess(logging: LivepushExecutable.path, ["serve", "--config", config])
        defer { serve.stop() }
        guard Self.waitForBytes(in: firstPrimary, atLeast: 1, timeoutSeconds: 30) else {
            throw ValidationErrorText("nothing reached the primary: \(serve.output.suffix(2000))")
        }
        Thread.sleep(forTimeInterval: 3)

        primaryListener.kill(signal: SIGKILL)
        let killed = MonotonicClock.nowNanos()
        guard Self.waitForBytes(in: backup, atLeast: 1, timeoutSeconds: 30) else {
            throw ValidationErrorText("nothing reached the backup: \(serve.output.suffix(2000))")
        }
        let failover = Double(MonotonicClock.nowNanos() - killed) / 1e9
        Thread.sleep(forTimeInterval: 3)

        let returned = try Self.listener(port: primaryPort, writingTo: secondPrimary)
        defer { returned.stop() }
        let listening = MonotonicClock.nowNanos()
        guard Self.waitForBytes(in: secondPrimary, atLeast: 1, timeoutSeconds: 30) else {
            throw ValidationErrorText("the stream never came back to the primary: \(serve.output.suffix(2000))")
        }
        let back = Double(MonotonicClock.nowNanos() - listening) / 1e9
        Thread.sleep(forTimeInterval: 2)
        serve.stop()
        let pts = try [firstPrimary, backup, secondPrimary].map(Self.videoPTS)
        func gap(_ from: [Double], _ to: [Double]) -> String {
            guard let last = from.last, let first = to.first else { return "no video" }
            return String(format: "%.0f ms", (first - last) * 1000)
        }
        // What the encoder made: the killed primary's bytes over its stream time.
        let rate = (pts[0].last ?? 0) > (pts[0].first ?? 0)
            ? String(format: "%.0f", Double(Self.size(of: firstPrimary) * 8) / ((pts[0].last ?? 0) - (pts[0].first ?? 0)) / 1000) : "–"
        return [rate, String(format: "%.2f s", failover), gap(pts[0], pts[1]), String(format: "%.2f s", back), gap(pts[1], pts[2])]
    }

    /// `srt-live-transmit` listening on `port`, writing what it receives to `path`, returned once the
    /// port is bound. It listens again after each caller (`-a:yes`), as livepush's probes come and go.
    static func listener(port: Int, writingTo path: String) throws -> BackgroundProcess {
        let receiver = try BackgroundProcess("sh", ["-c", "exec '\(try ExternalTool.require("srt-live-transmit"))' -q -a:yes 'srt://:\(port)?mode=listener' file://con > '\(path)'"])
        guard UDPPortWait.waitUntilBound([port], by: receiver) else {
            throw ValidationErrorText("srt-live-transmit never listened on UDP port \(port): \(receiver.errorOutput.suffix(800))")
        }
        return receiver
    }

    static func size(of path: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }

    /// Polls (every 10 ms) until `path` holds `bytes`; false after `timeoutSeconds`.
    static func waitForBytes(in path: String, atLeast bytes: Int, timeoutSeconds: Double) -> Bool {
        let deadline = MonotonicClock.nowNanos() + Int64(timeoutSeconds * 1e9)
        repeat {
            if size(of: path) >= bytes { return true }
            Thread.sleep(forTimeInterval: 0.01)
        } while MonotonicClock.nowNanos() < deadline
        return false
    }

    /// The PTS (seconds) of every video packet of the MPEG-TS file `path`, as ffprobe reads them.
    static func videoPTS(_ path: String) throws -> [Double] {
        let output = try ExternalTool.run("ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time", "-of", "csv=p=0", path]).output
        return output.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: ","))) }
    }
}
