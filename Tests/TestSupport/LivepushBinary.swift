import Foundation
import Harness

/// The `livepush` executable built beside the test bundle (the same `swift build` products directory),
/// so tests drive the real program as a user would.
public enum LivepushBinary {
    public struct NotBuilt: Error, CustomStringConvertible { public var description: String }

    public static var repository: URL { Repository.root }

    public static func path() throws -> String {
        let directories = [Bundle.main.executableURL?.deletingLastPathComponent(),
                           URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
                           Bundle.main.bundleURL.deletingLastPathComponent()].compactMap { $0 }
        for directory in directories {
            let candidate = directory.appendingPathComponent("livepush").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw NotBuilt(description: "livepush binary not found beside the tests in \(directories.map(\.path)): run swift build first")
    }
}

extension LivepushBinary {
    /// The recording a refused `stream` would have made: it must not exist afterwards.
    public static let neverRecorded = "/tmp/never.mp4"

    /// `livepush stream FLAGS --record /tmp/never.mp4` with flags it must refuse before anything
    /// starts: the status and the message (the caller checks them), and whether the recording was
    /// left unmade.
    public static func refusedStream(_ flags: [String]) throws -> (result: ExternalTool.Result, recorded: Bool) {
        let result = try ExternalTool.run(try path(), ["stream"] + flags + ["--record", neverRecorded], timeoutSeconds: 30, check: false)
        return (result, FileManager.default.fileExists(atPath: neverRecorded))
    }
}
