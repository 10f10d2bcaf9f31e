import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback-only network namespace (`unshare --net`, then `lo` up) for the WebRTC peers: the
/// browser, aiortc, Janus and livepush see only 127.0.0.1 there, so no candidate names another
/// interface and no packet leaves the machine (recipes in ../shared/peers/README.md). A bash script
/// runs inside it, bounded by `timeout -k`; its working directory is ``directory``, where it writes
/// its logs. The test's own sockets can join it through ``enter(_:)``.
public final class LoopbackNamespace {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    public let directory: TemporaryDirectory
    private let shell: BackgroundProcess

    /// Starts `script` in a fresh namespace; it is killed after `timeoutSeconds`.
    public init(script: String, timeoutSeconds: Int) throws {
        directory = try TemporaryDirectory()
        try script.write(toFile: directory.file("run.sh"), atomically: true, encoding: .utf8)
        // unshare execs timeout, so the process we hold lives in the new namespace (see enter).
        shell = try BackgroundProcess("unshare", [
            "--net", "timeout", "-k", "5", "\(timeoutSeconds)", "sh", "-c",
            "cd '\(directory.path)' && ip link set lo up && touch namespace-up && exec bash run.sh",
        ])
    }

    /// A namespace that only holds, for the processes started in it (``BackgroundProcess``'s `in:`),
    /// until `seconds` pass or ``stop()``. Throws if it does not come up.
    public convenience init(holdingForSeconds seconds: Int) throws {
        try self.init(script: "exec sleep \(seconds)", timeoutSeconds: seconds)
        try waitUntilUp()
    }

    /// Runs `script` in a fresh namespace to its end; throws if it outlives `timeoutSeconds`.
    @discardableResult
    public static func run(script: String, timeoutSeconds: Int) throws -> LoopbackNamespace {
        let namespace = try LoopbackNamespace(script: script, timeoutSeconds: timeoutSeconds)
        guard namespace.wait(timeoutSeconds: Double(timeoutSeconds + 10)) != nil else {
            throw Failure(description: "the namespace's script did not end within \(timeoutSeconds) s")
        }
        return namespace
    }

    /// Waits (bounded) for the script to end; its exit status, or nil if it still runs.
    @discardableResult
    public func wait(timeoutSeconds: Double) -> Int32? { shell.wait(timeoutSeconds: timeoutSeconds) }

    /// A file the script wrote in its directory ("" when absent).
    public func contents(of name: String) -> String {
        (try? String(contentsOfFile: directory.file(name), encoding: .utf8)) ?? ""
    }

    /// Waits (bounded) until `lo` is up in the namespace; throws if the namespace ended or never came up.
    public func waitUntilUp(timeoutSeconds: Double = 10) throws {
        guard shell.waitUntil(timeoutSeconds: timeoutSeconds, {
            FileManager.default.fileExists(atPath: directory.file("namespace-up")) || !shell.isRunning
        }), shell.isRunning else {
            throw Failure(description: "the namespace did not come up (unshare --net needs root and util-linux): \(shell.errorOutput.suffix(1000))")
        }
    }

    /// `executable arguments` run inside the namespace: `nsenter --net`, which execs the program in
    /// place, so its pid is the program's own (what a benchmark samples in /proc).
    public func command(_ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        ("/usr/bin/nsenter", ["--net=\(networkPath)", "--", executable] + arguments)
    }

    /// Ends the namespace's script (and with it a holding namespace). Processes started in it
    /// through ``command(_:_:)`` are not its children: their owners stop them.
    public func stop() { ProcessTree.terminate(shell.pid) }

    private var networkPath: String { "/proc/\(shell.pid)/ns/net" }

    /// Runs `body` on a thread that has joined the namespace (once `lo` is up there): sockets it
    /// opens belong to the namespace for good, whichever thread uses them later, and so do the
    /// processes it starts (a ``ServeUnderTest``, an ``NginxRTMPServer``, a browser), with what they start.
    public func enter<T>(timeoutSeconds: Double = 10, _ body: @escaping @Sendable () throws -> T) throws -> T {
        try waitUntilUp(timeoutSeconds: timeoutSeconds)
        let path = networkPath
        let outcome = Outcome<T>()
        let thread = Thread {
            let result = Result { () throws -> T in
                try Self.joinNamespace(at: path)
                return try body()
            }
            outcome.store(result)
        }
        thread.start()
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while Date() < deadline {
            if let result = outcome.result { return try result.get() }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw Failure(description: "entering the namespace took longer than \(timeoutSeconds) s")
    }

    /// setns(2) for the calling thread only. Swift's Glibc does not import setns (it needs
    /// _GNU_SOURCE), so it is looked up at run time.
    private static func joinNamespace(at path: String) throws {
        typealias SetNS = @convention(c) (Int32, Int32) -> Int32
        let cloneNewNet: Int32 = 0x4000_0000
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else {
            throw Failure(description: "setns is not in this libc")
        }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw Failure(description: "open \(path): errno \(errno)") }
        defer { close(descriptor) }
        guard unsafeBitCast(symbol, to: SetNS.self)(descriptor, cloneNewNet) == 0 else {
            throw Failure(description: "setns \(path): errno \(errno) (joining a network namespace needs root)")
        }
    }
}

/// What the namespaced thread hands back. Unchecked: the value is made on that thread, which ends
/// once it is stored, so only the caller uses it afterwards.
private final class Outcome<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Result<T, any Error>?

    func store(_ result: Result<T, any Error>) { lock.withLock { stored = result } }
    var result: Result<T, any Error>? { lock.withLock { stored } }
}
