import Foundation

/// Waits for a peer's UDP socket instead of sleeping: a listener is up once the kernel lists it in
/// /proc/net/udp (or udp6), however long its process took to start on a busy machine.
public enum UDPPortWait {
    /// Whether a UDP socket is bound to `port` on any local address.
    public static func isBound(_ port: Int) -> Bool {
        let local = String(format: ":%04X", port)
        return ["/proc/net/udp", "/proc/net/udp6"].contains { table in
            ((try? String(contentsOfFile: table, encoding: .utf8)) ?? "").split(separator: "\n").dropFirst().contains { line in
                line.split(separator: " ").dropFirst().first?.hasSuffix(local) == true
            }
        }
    }

    /// Polls until every one of `ports` is bound: false if `process` (the peer that binds them)
    /// ended first or after `timeoutSeconds`, a bound on a hang only.
    public static func waitUntilBound(_ ports: [Int], by process: BackgroundProcess, timeoutSeconds: Double = 20) -> Bool {
        _ = process.waitUntil(timeoutSeconds: timeoutSeconds) { !process.isRunning || ports.allSatisfy(isBound) }
        return process.isRunning && ports.allSatisfy(isBound)
    }
}
