import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Ends a process a test started together with everything it started in turn, pass or fail.
///
/// A peer is often a wrapper (`timeout`, `sh -c`, `unshare`) around the real server, and wrappers
/// such as `timeout` move themselves into a process group of their own. Killing only the pid we hold
/// left Janus (which ignores SIGTERM) running long after the suite. So the whole tree is collected
/// from /proc while it is still intact, asked to stop with SIGTERM, and killed after a short grace.
public enum ProcessTree {
    /// Every live process below `root`, found through the parent pid in /proc/PID/stat.
    public static func descendants(of root: pid_t) -> [pid_t] {
        var children: [pid_t: [pid_t]] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = pid_t(entry), let (parent, state) = status(of: pid), state != "Z" else { continue }
            children[parent, default: []].append(pid)
        }
        var found: [pid_t] = []
        var queue = children[root] ?? []
        while let next = queue.popLast(), found.count < 10_000 {
            found.append(next)
            queue += children[next] ?? []
        }
        return found
    }

    /// SIGTERM to `root`, its process group and every descendant; SIGKILL to whatever is left after
    /// `graceSeconds`. Returns once all of them are gone (or after a bounded wait for the kernel).
    public static func terminate(_ root: pid_t, graceSeconds: Double = 2) {
        var members = [root] + descendants(of: root)
        signal(members, group: root, SIGTERM)
        let deadline = Date().addingTimeInterval(graceSeconds)
        while Date() < deadline, members.contains(where: isAlive) { Thread.sleep(forTimeInterval: 0.02) }
        members += descendants(of: root).filter { !members.contains($0) }
        guard members.contains(where: isAlive) else { return }
        signal(members, group: root, SIGKILL)
        let killDeadline = Date().addingTimeInterval(2)
        while Date() < killDeadline, members.contains(where: isAlive) { Thread.sleep(forTimeInterval: 0.02) }
    }

    private static func signal(_ members: [pid_t], group: pid_t, _ number: Int32) {
        _ = kill(-group, number)
        for pid in members where isAlive(pid) { _ = kill(pid, number) }
    }

    /// Running (not a zombie waiting to be reaped).
    public static func isAlive(_ pid: pid_t) -> Bool {
        guard let (_, state) = status(of: pid) else { return false }
        return state != "Z" && state != "X"
    }

    /// The parent pid and state letter from /proc/PID/stat ("pid (comm) S ppid ...", comm may hold spaces).
    private static func status(of pid: pid_t) -> (parent: pid_t, state: Character)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 1, let state = fields[0].first, let parent = pid_t(fields[1]) else { return nil }
        return (parent, state)
    }
}
