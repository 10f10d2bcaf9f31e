import Foundation
#if canImport(Glibc)
import Glibc
import Harness
#endif

/// A CPU budget for the program under test, for the CPU-adaptation process tests: a cgroup whose
/// CFS quota the test sets from the program's own cost, measured in the same run (``cores(of:overSeconds:)``).
///
/// Busy loops beside the program made "overloaded" mean whatever the machine's speed left over that
/// minute, so the same test stepped down on one machine and never climbed back on another. A quota
/// is a share of the CPU the test chooses: capped at a quarter of what the job was just measured to
/// need, the job is overloaded on any machine; with the cap lifted, it has what it had when measured.
///
/// Uses cgroup v2's `cpu.max` where the unified hierarchy has the cpu controller, else cgroup v1's
/// `cpu.cfs_quota_us` (this project's machines mount v1's cpu controller). Needs root. The group and
/// every process in it end with this value, pass or fail.
public final class CPUQuota {
    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// The CFS period the quota is a share of: the kernel's default, long enough that an encode
    /// under the cap is not throttled by a key frame's burst, and short beside a judged second.
    public static let periodMicros = 100_000
    /// The kernel's smallest quota (1 ms of each period).
    public static let minimumQuotaMicros = 1_000

    public let directory: String
    private let isVersion2: Bool
    private var processes: [BackgroundProcess] = []

    /// Makes a new, uncapped group.
    public init() throws {
        let name = "livepush-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let version1 = "/sys/fs/cgroup/cpu"
        let version2 = "/sys/fs/cgroup"
        if FileManager.default.fileExists(atPath: "\(version1)/cpu.cfs_quota_us") {
            (directory, isVersion2) = ("\(version1)/\(name)", false)
        } else if let controllers = try? String(contentsOfFile: "\(version2)/cgroup.controllers", encoding: .utf8),
                  controllers.split(separator: " ").contains(where: { $0.trimmingCharacters(in: .whitespacesAndNewlines) == "cpu" }) {
            // The controller must be handed down to the new group (already so where systemd uses it).
            try? "+cpu".write(toFile: "\(version2)/cgroup.subtree_control", atomically: false, encoding: .utf8)
            (directory, isVersion2) = ("\(version2)/\(name)", true)
        } else {
            throw Unavailable(description: "no cgroup cpu controller at \(version1) or in \(version2)/cgroup.controllers: "
                              + "the CPU-adaptation tests cap livepush's CPU with a cgroup quota, which needs root and the cpu controller")
        }
        guard mkdir(directory, 0o755) == 0 else {
            throw Unavailable(description: "cannot create the cgroup \(directory): \(String(cString: strerror(errno))) (run the tests as root)")
        }
        guard FileManager.default.fileExists(atPath: "\(directory)/\(isVersion2 ? "cpu.max" : "cpu.cfs_quota_us")") else {
            rmdir(directory)
            throw Unavailable(description: "the cgroup \(directory) has no cpu controller: enable it for the parent group")
        }
        try lift()
    }

    deinit {
        for process in processes { process.kill(signal: SIGKILL) }
        for process in processes { process.wait(timeoutSeconds: 5) }
        processes.removeAll()
        // A group can be removed once its last process is gone (bounded: the kernel reaps them shortly).
        let deadline = Date().addingTimeInterval(5)
        while rmdir(directory) != 0, errno == EBUSY, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
    }

    /// `livepush ARGUMENTS` inside the group: a shell joins it and execs livepush, so the process
    /// is livepush itself (SIGINT reaches it) and every thread it starts counts against the quota.
    /// Give it a `--duration` so it ends if the test dies.
    public func livepush(_ arguments: [String]) throws -> BackgroundProcess {
        let process = try BackgroundProcess("sh", ["-c", "echo $$ > \"$0\" && exec \"$@\"", "\(directory)/cgroup.procs",
                                                   try LivepushBinary.path()] + arguments)
        processes.append(process)
        return process
    }

    /// Caps the group at `cores` of CPU time (0.25: a quarter of one core), at least the kernel's minimum.
    public func cap(cores: Double) throws {
        let quota = max(Self.minimumQuotaMicros, Int(cores * Double(Self.periodMicros)))
        try write(quota: "\(quota)")
    }

    /// Lifts the cap: the group may use the whole machine.
    public func lift() throws {
        try write(quota: nil)
    }

    /// The CPU `process` uses, in cores, over `seconds` of wall time (its user and system time, all
    /// threads, from /proc); nil if it ended.
    public static func cores(of process: BackgroundProcess, overSeconds seconds: Double) -> Double? {
        let pid = process.process.processIdentifier
        guard let before = cpuSeconds(of: pid) else { return nil }
        let start = Date()
        Thread.sleep(forTimeInterval: seconds)
        guard let after = cpuSeconds(of: pid) else { return nil }
        return (after - before) / Date().timeIntervalSince(start)
    }

    /// What `livepush stream` costs uncapped once it encodes: waits (bounded) for its first status
    /// line, lets the encoders settle in for a second, then measures over `seconds`; nil if it never
    /// encoded or ended.
    public static func steadyCores(of livepush: BackgroundProcess, overSeconds seconds: Double = 3) -> Double? {
        guard livepush.waitUntil(timeoutSeconds: 60, { livepush.output.contains("encoded ") }) else { return nil }
        Thread.sleep(forTimeInterval: 1)
        return cores(of: livepush, overSeconds: seconds)
    }

    /// A process's user plus system time so far, in seconds (fields 14 and 15 of /proc/PID/stat).
    static func cpuSeconds(of pid: pid_t) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after the command's closing parenthesis start at field 3 (the state).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private func write(quota micros: String?) throws {
        let (file, value) = isVersion2
            ? ("cpu.max", "\(micros ?? "max") \(Self.periodMicros)")
            : ("cpu.cfs_quota_us", micros ?? "-1")
        if !isVersion2 { try "\(Self.periodMicros)".write(toFile: "\(directory)/cpu.cfs_period_us", atomically: false, encoding: .utf8) }
        do {
            try value.write(toFile: "\(directory)/\(file)", atomically: false, encoding: .utf8)
        } catch {
            throw Unavailable(description: "cannot set \(directory)/\(file) to \(value): \(error)")
        }
    }
}
