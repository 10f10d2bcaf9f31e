import Foundation

/// CPU time and resident memory of this process from /proc (Linux), for `/metrics`, the status
/// API and the serve benchmark.
public enum ProcessStats {
    public struct Sample: Sendable, Equatable {
        public var cpuSeconds: Double
        public var residentBytes: Int
    }

    /// Reads /proc/PID/stat (utime + stime, fields 14 and 15, in clock ticks) and /proc/PID/statm
    /// (resident pages, field 2); nil when /proc is not there.
    public static func sample(pid: String = "self") -> Sample? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let statm = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return nil }
        return parse(stat: stat, statm: statm, ticksPerSecond: Double(sysconf(Int32(_SC_CLK_TCK))), pageSize: Int(sysconf(Int32(_SC_PAGESIZE))))
    }

    /// The comm field may hold spaces and parentheses, so fields are counted after its last ')'.
    static func parse(stat: String, statm: String, ticksPerSecond: Double, pageSize: Int) -> Sample? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the comm, field 3 (state) is index 0, so utime (14) is index 11 and stime (15) index 12.
        guard fields.count > 12, let utime = Double(fields[11]), let stime = Double(fields[12]), ticksPerSecond > 0 else { return nil }
        let pages = statm.split(separator: " ")
        guard pages.count > 1, let resident = Int(pages[1]) else { return nil }
        return Sample(cpuSeconds: (utime + stime) / ticksPerSecond, residentBytes: resident * pageSize)
    }
}
