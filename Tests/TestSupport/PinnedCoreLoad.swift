import Foundation

/// One core made scarce, for the CPU-adaptation process tests: a busy loop pinned to it with
/// `taskset` (one runnable thread, as another busy process would be), and `livepush` started on
/// the same core, so the encoder gets about half of it until ``lift()`` ends the loop.
///
/// The busy loop, and every `livepush` started here, ends with this value (pass or fail).
public final class PinnedCoreLoad {
    public let core: Int
    private var burner: BackgroundProcess?

    /// Starts the busy loop on `core`.
    public init(core: Int = 0) throws {
        self.core = core
        burner = try BackgroundProcess("taskset", ["-c", "\(core)", "sh", "-c", "while :; do :; done"])
    }

    deinit { lift() }

    /// `livepush ARGUMENTS` pinned to the loaded core. `taskset` execs livepush, so the process is
    /// livepush itself and SIGINT reaches it; give it a `--duration` so it ends if the test dies.
    public func livepush(_ arguments: [String]) throws -> BackgroundProcess {
        try BackgroundProcess("taskset", ["-c", "\(core)", try LivepushBinary.path()] + arguments)
    }

    /// Ends the busy loop; true once it is gone (or was already).
    @discardableResult
    public func lift() -> Bool {
        guard let burner else { return true }
        burner.kill(signal: SIGKILL)
        guard burner.wait(timeoutSeconds: 5) != nil else { return false }
        self.burner = nil
        return true
    }
}
