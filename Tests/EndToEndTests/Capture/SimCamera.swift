import Foundation
import TestSupport

/// Runs the real `livepush` binary under scripts/sim-camera (LD_PRELOAD must be set before a
/// process starts, so the test process cannot preload the simulator into itself).
enum SimCamera {
    static let script = Repository.root.appendingPathComponent("scripts/sim-camera").path

    /// Runs `livepush ARGS` with simulated cameras; never throws for a non-zero exit (tests assert on it).
    static func run(_ arguments: [String], environment: [String: String] = [:], timeoutSeconds: Double = 30) throws -> ExternalTool.Result {
        try ExternalTool.run(script, ["--", try LivepushBinary.path()] + arguments, timeoutSeconds: timeoutSeconds,
                             environment: environment, check: false)
    }

    /// The JSON objects `run --json-events` printed, one per line.
    static func events(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }
}

/// A fault file for the simulator (LIVEPUSH_SIM_FAULTS), rewritten while a client streams.
/// Unchecked Sendable: only the test's own task writes it; the simulator reads it in another process.
final class FaultFile: @unchecked Sendable {
    let directory: TemporaryDirectory
    let path: String

    init(_ lines: [String] = []) throws {
        directory = try TemporaryDirectory()
        path = directory.file("faults")
        try set(lines)
    }

    func set(_ lines: [String]) throws {
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    var environment: [String: String] { ["LIVEPUSH_SIM_FAULTS": path] }
}
