import Engine
import Foundation
import MediaCore
import Server

/// A process a benchmark starts and samples: output to a file (a child printing a status line
/// would block on a full pipe), CPU and resident memory from /proc, every wait bounded.
final class BenchChild {
    let process = Process()
    private let logPath: String

    /// Starts `executable` (inside `namespace` when given) with stdout and stderr in one log file.
    init(_ executable: String, _ arguments: [String], in namespace: BenchNamespace? = nil) throws {
        let command = namespace?.command(executable, arguments) ?? (executable: executable, arguments: arguments)
        logPath = FileManager.default.temporaryDirectory.appendingPathComponent("livepush-bench-\(UUID().uuidString).log").path
        guard FileManager.default.createFile(atPath: logPath, contents: nil) else {
            throw ValidationErrorText("cannot create the log file \(logPath)")
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.executableURL = URL(fileURLWithPath: command.executable)
        process.arguments = command.arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
    }

    deinit { try? FileManager.default.removeItem(atPath: logPath) }

    var pid: Int32 { process.processIdentifier }

    /// Everything the child printed so far.
    var output: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// CPU seconds so far and resident bytes now; nil once the process is gone.
    var sample: ProcessStats.Sample? { ProcessStats.sample(pid: "\(pid)") }

    /// The peak resident set so far (VmHWM).
    var peakRSSKiB: Int? { Self.peakRSSKiB(pid: pid) }

    /// Anonymous resident memory now (RssAnon: heap, stacks, buffers; not the mapped files).
    var anonymousRSSKiB: Int? { Self.statusKiB("RssAnon", pid: pid) }

    /// VmHWM from /proc/PID/status.
    static func peakRSSKiB(pid: Int32) -> Int? { statusKiB("VmHWM", pid: pid) }

    /// A "Field:  1234 kB" line of /proc/PID/status.
    static func statusKiB(_ field: String, pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    /// Waits until the output contains `text`; false if the child exits first or time runs out.
    func waitForOutput(containing text: String, timeoutSeconds: Double) -> Bool {
        let deadline = MonotonicClock.nowNanos() + Int64(timeoutSeconds * 1e9)
        while MonotonicClock.nowNanos() < deadline {
            if output.contains(text) { return true }
            guard process.isRunning else { return output.contains(text) }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return false
    }

    /// Waits for the child to exit by itself; false if it still runs after `timeoutSeconds`.
    @discardableResult
    func waitForExit(timeoutSeconds: Double) -> Bool {
        let deadline = MonotonicClock.nowNanos() + Int64(timeoutSeconds * 1e9)
        while process.isRunning, MonotonicClock.nowNanos() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        return !process.isRunning
    }

    /// SIGINT (a clean stop), then SIGKILL if it has not exited within `graceSeconds`.
    func stop(graceSeconds: Double = 10) {
        guard process.isRunning else { return }
        kill(pid, SIGINT)
        if !waitForExit(timeoutSeconds: graceSeconds) {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }
}
