import Foundation

/// A peer or the program under test running in the background (a server, a stream). On deinit it
/// ends with everything it started (``ProcessTree``), so a failing test never leaves a peer behind.
public final class BackgroundProcess: @unchecked Sendable {
    public let process = Process()
    private let outputURL: URL
    private let errorURL: URL
    private let directory: TemporaryDirectory

    public init(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        guard let executable = ExternalTool.path(of: name) else {
            throw ExternalTool.Failure(description: "\(name) is not installed: run scripts/install-deps --test (\(ExternalTool.package(of: name)))")
        }
        directory = try TemporaryDirectory()
        outputURL = directory.url.appendingPathComponent("stdout")
        errorURL = directory.url.appendingPathComponent("stderr")
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        try process.run(writingOutputTo: outputURL, errorsTo: errorURL)
    }

    deinit { ProcessTree.terminate(process.processIdentifier) }

    public var isRunning: Bool { process.isRunning }
    public var output: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }
    public var errorOutput: String { (try? String(contentsOf: errorURL, encoding: .utf8)) ?? "" }

    public func kill(signal: Int32) {
        if process.isRunning { Foundation.kill(process.processIdentifier, signal) }
    }

    /// Waits up to `timeoutSeconds` for the process to exit; returns its status, or nil if still running.
    @discardableResult
    public func wait(timeoutSeconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// Waits (bounded) until `condition` holds, polling every 20 ms.
    public func waitUntil(timeoutSeconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition()
    }
}
