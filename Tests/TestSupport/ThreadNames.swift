import Foundation
import Harness

/// The names of a process's threads as the kernel shows them (/proc/PID/task/*/comm: what `top -H`
/// and `ps -L` print), for tests that check livepush names its threads for what they do.
public enum ThreadNames {
    /// `pid`'s thread names now ("self": the test process); empty once it ended.
    public static func of(_ pid: String) -> Set<String> {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return Set(tasks.compactMap {
            try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        })
    }

    public static func of(_ process: BackgroundProcess) -> Set<String> { of("\(process.process.processIdentifier)") }
}
