import Foundation
import TestSupport

/// Runs the real `livepush` binary under scripts/sim-camera (LD_PRELOAD must be set before a
/// process starts, so the test process cannot preload the simulator into itself).
enum SimCamera {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let script = repository.appendingPathComponent("scripts/sim-camera").path

    /// `livepush` beside the test bundle (the same `swift build` products directory).
    static func livepush() throws -> String {
        let directories = [Bundle.main.executableURL?.deletingLastPathComponent(),
                           URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                           Bundle.main.bundleURL.deletingLastPathComponent()].compactMap { $0 }
        for directory in directories {
            let candidate = directory.appendingPathComponent("livepush").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw NotBuilt(description: "livepush binary not found beside the tests in \(directories.map(\.path)): run swift build first")
    }

    /// Runs `livepush ARGS` with simulated cameras; never throws for a non-zero exit (tests assert on it).
    static func run(_ arguments: [String], environment: [String: String] = [:], timeoutSeconds: Double = 30) throws -> ExternalTool.Result {
        try ExternalTool.run(script, ["--", try livepush()] + arguments, timeoutSeconds: timeoutSeconds,
                             environment: environment, check: false)
    }

    struct NotBuilt: Error, CustomStringConvertible { var description: String }

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
