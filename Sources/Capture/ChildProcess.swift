import CProcess
import Foundation
import MediaCore

/// A helper program livepush runs for a source (rpicam-vid), with its stdout and stderr on pipes
/// the owner polls. It is tied to livepush's lifetime: its own process group, killed by the kernel
/// when livepush dies (`PR_SET_PDEATHSIG`), and ``terminate()`` ends the whole group. The death
/// signal follows the thread that forked, not the process, so every child is forked from one
/// thread that lives as long as livepush (``ChildSpawner``), never from a pool thread that may exit.
///
/// Used from one thread at a time, like the source that owns it.
final class ChildProcess {
    let pid: pid_t
    /// Read ends, non-blocking and close-on-exec.
    let stdoutFD: Int32
    let stderrFD: Int32
    private var exitStatus: Int32?

    /// Starts `executable` (an absolute path) with `arguments` (without argv[0]).
    init(executable: String, arguments: [String]) throws(CaptureError) {
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        guard pipe(&out) == 0 else { throw Self.failure(executable, "pipe", errno) }
        guard pipe(&err) == 0 else {
            let code = errno
            Glibc.close(out[0]); Glibc.close(out[1])
            throw Self.failure(executable, "pipe", code)
        }
        // Our read ends never block and stay out of other children (which close every descriptor
        // above stderr anyway); the child's ends stay ordinary blocking pipes, as rpicam-vid expects.
        for fd in [out[0], err[0]] {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        for fd in [out[1], err[1]] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let result = ChildSpawner.shared.run { lp_spawn_child(executable, argv, out[1], err[1]) }
        Glibc.close(out[1]); Glibc.close(err[1])
        guard result > 0 else {
            Glibc.close(out[0]); Glibc.close(err[0])
            throw Self.failure(executable, "fork", -result)
        }
        pid = result
        stdoutFD = out[0]
        stderrFD = err[0]
    }

    private static func failure(_ executable: String, _ operation: String, _ code: Int32) -> CaptureError {
        .childProcessFailed(command: executable, reason: "\(operation) failed: \(String(cString: strerror(code)))")
    }

    /// The exit status once the child has ended (reaped without blocking), else nil.
    func exitStatusIfExited() -> Int32? {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        exitStatus = status
        return status
    }

    /// Describes a raw wait status: "exit code 3" or "killed by signal 9".
    static func describe(status: Int32) -> String {
        let signal = status & 0x7f
        return signal == 0 ? "exit code \((status >> 8) & 0xff)" : "killed by signal \(signal)"
    }

    /// Ends the child's process group: SIGTERM, then SIGKILL after `graceSeconds`, and reaps it.
    /// Closes the pipes. Later calls do nothing (the pid may since belong to another process).
    func terminate(graceSeconds: Double = 1) {
        guard !pipesClosed else { return }
        defer { closePipes() }
        // A leader that already exited: what it started may still hold the group.
        guard exitStatusIfExited() == nil else { killpg(pid, SIGKILL); return }
        killpg(pid, SIGTERM)
        let deadline = MonotonicClock.nowNanos() + Int64(graceSeconds * 1e9)
        while exitStatusIfExited() == nil, MonotonicClock.nowNanos() < deadline {
            usleep(10_000)
        }
        // Whatever it started shares the group; nothing of it may stay behind.
        killpg(pid, SIGKILL)
        if exitStatus == nil {
            var status: Int32 = 0
            if waitpid(pid, &status, 0) == pid { exitStatus = status }
        }
    }

    private var pipesClosed = false
    private func closePipes() {
        guard !pipesClosed else { return }
        pipesClosed = true
        Glibc.close(stdoutFD)
        Glibc.close(stderrFD)
    }

    deinit { terminate(graceSeconds: 0) }
}

/// The one thread that forks every ``ChildProcess``: it never exits, so the children's
/// parent-death signal fires only when livepush itself ends.
final class ChildSpawner: @unchecked Sendable {
    static let shared = ChildSpawner()
    private let condition = NSCondition()
    private var job: (() -> Void)?

    private init() {
        let thread = Thread { [unowned self] in
            ThreadName("spawner").applyToCurrentThread()
            self.serve()
        }
        thread.start()
    }

    /// Runs `work` on the spawner thread and returns its result; callers take turns.
    func run(_ work: @escaping () -> Int32) -> Int32 {
        var result: Int32 = 0
        var done = false
        condition.lock()
        while job != nil { condition.wait() }
        job = { result = work(); done = true }
        condition.broadcast()
        while !done { condition.wait() }
        condition.unlock()
        return result
    }

    private func serve() {
        condition.lock()
        while true {
            while job == nil { condition.wait() }
            job?()
            job = nil
            condition.broadcast()
        }
    }
}
