import Foundation
import MediaCore

/// CPU time from getrusage, for benchmarks that give CPU per frame: this process, the calling
/// thread, or an ffmpeg child run to its end.
enum BenchCPU {
    /// Linux's RUSAGE_THREAD (1): Glibc exports it to Swift only with _GNU_SOURCE.
    static let thread = __rusage_who_t(1)

    /// User plus system CPU seconds of `who` (the process, the calling thread, or waited-for children).
    static func seconds(_ who: __rusage_who_t) -> Double {
        var usage = rusage()
        getrusage(who, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// Runs the ffmpeg CLI with `arguments` to its end (killed after `timeoutSeconds`); its wall and CPU seconds.
    static func ffmpeg(_ arguments: [String], timeoutSeconds: Double) throws -> (wall: Double, cpu: Double) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-hide_banner", "-nostdin", "-v", "error"] + arguments
        process.standardInput = FileHandle.nullDevice
        let children = seconds(RUSAGE_CHILDREN.rawValue), start = MonotonicClock.nowNanos()
        try process.run()
        let deadline = start + Int64(timeoutSeconds * 1e9)
        while process.isRunning, MonotonicClock.nowNanos() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw ValidationErrorText("ffmpeg did not finish in \(Int(timeoutSeconds)) s: ffmpeg \(arguments.joined(separator: " "))")
        }
        guard process.terminationStatus == 0 else { throw ValidationErrorText("ffmpeg exited \(process.terminationStatus): ffmpeg \(arguments.joined(separator: " "))") }
        return (Double(MonotonicClock.nowNanos() - start) / 1e9, seconds(RUSAGE_CHILDREN.rawValue) - children)
    }
}
