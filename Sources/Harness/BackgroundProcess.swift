import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A peer or the program under test running in the background (a server, a stream). On deinit it
/// ends with everything it started (``ProcessTree``), so a failing test never leaves a peer behind.
public final class BackgroundProcess: @unchecked Sendable {
    public let process = Process()
    private let outputURL: URL
    private let errorURL: URL
    private let directory: TemporaryDirectory

    /// Starts `name` (a path, or a program on PATH). `namespace`: inside that loopback-only network
    /// namespace, through `nsenter`, which execs the program in place, so ``process`` is the
    /// program's own pid. `errorsInOutput`: stderr goes to ``output`` too, interleaved as written
    /// (``errorOutput`` stays empty), for a program whose status lines may go to either.
    public init(_ name: String, _ arguments: [String], environment: [String: String] = [:],
                in namespace: LoopbackNamespace? = nil, errorsInOutput: Bool = false) throws {
        guard let executable = ExternalTool.path(of: name) else {
            throw ExternalTool.Failure(description: "\(name) is not installed: run scripts/install-deps --test (\(ExternalTool.package(of: name)))")
        }
        let command = namespace?.command(executable, arguments) ?? (executable: executable, arguments: arguments)
        directory = try TemporaryDirectory()
        outputURL = directory.url.appendingPathComponent("stdout")
        errorURL = directory.url.appendingPathComponent("stderr")
        process.executableURL = URL(fileURLWithPath: command.executable)
        process.arguments = command.arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        try process.run(writingOutputTo: outputURL, errorsTo: errorsInOutput ? nil : errorURL)
    }

    deinit { ProcessTree.terminate(process.processIdentifier) }

    public var isRunning: Bool { process.isRunning }
    public var pid: pid_t { process.processIdentifier }
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

    /// Waits for the process to exit by itself; false if it still runs after `timeoutSeconds`.
    @discardableResult
    public func waitForExit(timeoutSeconds: Double) -> Bool { wait(timeoutSeconds: timeoutSeconds) != nil }

    /// Waits (bounded) until the output or the error output contains `text`; false if the process
    /// exits without printing it, or time runs out.
    public func waitForOutput(containing text: String, timeoutSeconds: Double) -> Bool {
        func printed() -> Bool { output.contains(text) || errorOutput.contains(text) }
        return waitUntil(timeoutSeconds: timeoutSeconds) { printed() || !process.isRunning } && printed()
    }

    /// SIGINT (a clean stop, as Ctrl-C); if it still runs after `graceSeconds`, SIGTERM then SIGKILL
    /// to it and everything it started (``ProcessTree``).
    public func stop(graceSeconds: Double = 10) {
        guard process.isRunning else { return }
        kill(signal: SIGINT)
        if !waitForExit(timeoutSeconds: graceSeconds) { ProcessTree.terminate(pid) }
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
