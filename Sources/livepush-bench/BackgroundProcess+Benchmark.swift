import Engine
import Foundation
import Harness

/// A process a benchmark starts and samples (the harness's ``BackgroundProcess``): stdout and stderr
/// in one log (a child printing a status line would block on a full pipe), CPU and resident memory
/// from /proc. It ends, with all it started, when the benchmark lets go of it.
extension BackgroundProcess {
    /// Starts `executable` (inside `namespace` when given) with stdout and stderr in one log, ``output``.
    convenience init(logging executable: String, _ arguments: [String], in namespace: LoopbackNamespace? = nil) throws {
        try self.init(executable, arguments, in: namespace, errorsInOutput: true)
    }

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
}
