import Foundation

/// A loopback-only network namespace for a benchmark's processes (`unshare --net`, then `lo` up),
/// as the WebRTC tests use: a WebRTC viewer there offers only 127.0.0.1 candidates and no packet
/// leaves the machine. A holder process keeps the namespace alive; each child joins it through
/// `nsenter --net`, which execs the child in place, so the pid the benchmark samples in /proc is
/// the child's own.
final class BenchNamespace {
    private let holder: Process

    /// Starts the holder (it exits by itself after `seconds`, should the benchmark die first).
    init(seconds: Int) throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("livepush-bench-ns-\(UUID().uuidString)").path
        holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        holder.arguments = ["--net", "sh", "-c", "ip link set lo up && touch '\(marker)' && exec sleep \(seconds)"]
        holder.standardInput = FileHandle.nullDevice
        try holder.run()
        defer { try? FileManager.default.removeItem(atPath: marker) }
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: marker) && holder.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
        }
        guard FileManager.default.fileExists(atPath: marker) else {
            stop()
            throw ValidationErrorText("could not make a loopback-only network namespace (unshare --net needs root and util-linux)")
        }
    }

    /// `executable arguments` run inside the namespace.
    func command(_ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        ("/usr/bin/nsenter", ["--net=/proc/\(holder.processIdentifier)/ns/net", "--", executable] + arguments)
    }

    func stop() {
        guard holder.isRunning else { return }
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
    }
}
