import Foundation
import Harness
import MediaCore

/// Runs one or more publishers at once to their end, as the push benchmarks compare them: CPU is
/// user+system time of the children per frame (RUSAGE_CHILDREN deltas), peak memory the sum of each
/// child's VmHWM, steady memory the mean of the children's summed VmRSS from 5 s in to the end, and
/// each child's standard output (a file, not a pipe: `livepush stream` prints a status line every
/// 250 ms and would block on a full pipe).
enum BenchProcesses {
    struct Measurement {
        var cpuPerFrame: Double
        var peakRSSKiB: Int
        var steadyRSSKiB: Int
        /// Each child's standard output, in the order given.
        var outputs: [String]
        /// Each child's CPU seconds per thread name, at the last sample before it ended (``BenchThreadCPU``).
        var threadCPUSeconds: [[String: Double]]
        var output: String { outputs.joined(separator: "\n") }
    }

    static func measure(_ commands: [(executable: String, arguments: [String])], seconds: Int, frames: Double) throws -> Measurement {
        let logs = commands.map { _ in FileManager.default.temporaryDirectory.appendingPathComponent("livepush-bench-\(UUID().uuidString).log").path }
        defer { for log in logs { try? FileManager.default.removeItem(atPath: log) } }
        let before = BenchCPU.seconds(RUSAGE_CHILDREN.rawValue)
        var processes: [Process] = []
        defer {
            // SIGTERM, then SIGKILL after 5 s: an ffmpeg flushing to a receiver that stopped reading never exits on its own.
            for process in processes where process.isRunning {
                process.terminate()
                let deadline = MonotonicClock.nowNanos() + 5_000_000_000
                while process.isRunning, MonotonicClock.nowNanos() < deadline { Thread.sleep(forTimeInterval: 0.05) }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
            }
        }
        for (command, log) in zip(commands, logs) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: command.executable)
            process.arguments = command.arguments
            process.standardInput = FileHandle.nullDevice
            guard FileManager.default.createFile(atPath: log, contents: nil) else {
                throw ValidationErrorText("cannot create the log file \(log)")
            }
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            process.standardError = FileHandle.nullDevice
            try process.run()
            processes.append(process)
        }
        var peaks = processes.map { _ in 0 }
        var threads = processes.map { _ in [String: Double]() }
        var steady: [Int] = []
        let started = MonotonicClock.nowNanos()
        let deadline = started + Int64(seconds + 30) * 1_000_000_000
        while processes.contains(where: \.isRunning), MonotonicClock.nowNanos() < deadline {
            for (index, process) in processes.enumerated() where process.isRunning {
                peaks[index] = max(peaks[index], BackgroundProcess.peakRSSKiB(pid: process.processIdentifier) ?? 0)
                threads[index] = BenchThreadCPU.merge(threads[index], BenchThreadCPU.secondsByName(pid: process.processIdentifier))
            }
            if MonotonicClock.nowNanos() - started > 5_000_000_000 {
                steady.append(processes.filter(\.isRunning).compactMap { BackgroundProcess.statusKiB("VmRSS", pid: $0.processIdentifier) }.reduce(0, +))
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        for (process, command) in zip(processes, commands) {
            if process.isRunning { throw ValidationErrorText("\(command.executable) did not finish in time") }
            guard process.terminationStatus == 0 else { throw ValidationErrorText("\(command.executable) exited \(process.terminationStatus)") }
        }
        return Measurement(cpuPerFrame: (BenchCPU.seconds(RUSAGE_CHILDREN.rawValue) - before) / frames, peakRSSKiB: peaks.reduce(0, +),
                           steadyRSSKiB: steady.reduce(0, +) / max(1, steady.count),
                           outputs: logs.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }, threadCPUSeconds: threads)
    }
}
