import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension BackgroundProcess {
    /// SIGINT, as Ctrl-C, to the program this process runs through a wrapper (`timeout`), or to the
    /// process itself without one. The wrapper would forward it, but it inherits the test runner's
    /// blocked signals and never receives one.
    public func interrupt() {
        let pid = process.processIdentifier
        let children = ((try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? "")
            .split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        for target in children.isEmpty ? [pid] : children { Glibc.kill(target, SIGINT) }
    }
}
