import Foundation

/// CPU time per thread name of a running child, from /proc/PID/task/*/stat (utime + stime), so a
/// benchmark can give each of livepush's encoder threads on its own: they are named for their
/// rendition ("enc:720p", ``Codec/EncoderQueue/threadName(rendition:)``). A rendition's encoder
/// thread also scales its frames (and, for renditions of one size, scales once for its siblings).
enum BenchThreadCPU {
    /// CPU seconds of each thread of `pid` now, summed by name (threads of one name add up).
    static func secondsByName(pid: Int32) -> [String: Double] {
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var totals: [String: Double] = [:]
        for task in tasks {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
            // "TID (name) S ppid …": after the name, field 3 (state) is index 0, utime (14) index 11, stime (15) index 12.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            totals[String(stat[stat.index(after: open)..<close]), default: 0] += (user + system) / ticksPerSecond
        }
        return totals
    }

    /// The larger of each name's seconds in `latest` and `sampled`: a thread's time only grows while
    /// it lives, and a sample taken after it ended must not lose what it used.
    static func merge(_ sampled: [String: Double], _ latest: [String: Double]) -> [String: Double] {
        sampled.merging(latest) { max($0, $1) }
    }
}
