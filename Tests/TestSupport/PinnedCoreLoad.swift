import Foundation

/// One core made scarce, for the CPU-adaptation process tests: busy loops pinned to it with
/// `taskset` (each one runnable thread, as another busy process would be), and `livepush` started
/// on the same core, so beside N loops it gets about 1/(N+1) of it until ``lift()`` ends them.
/// More loops widen the gap between loaded and lifted, so an encode that settled under load has
/// clear headroom once the loops are gone (the detector's hysteresis is 0.9 against 0.5).
///
/// The busy loops, and every `livepush` started here, end with this value (pass or fail).
public final class PinnedCoreLoad {
    public let core: Int
    private var burners: [BackgroundProcess]

    /// Starts `busyLoops` busy loops on `core`.
    public init(core: Int = 0, busyLoops: Int = 1) throws {
        self.core = core
        burners = try (0..<max(1, busyLoops)).map { _ in try BackgroundProcess("taskset", ["-c", "\(core)", "sh", "-c", "while :; do :; done"]) }
    }

    deinit { lift() }

    /// `livepush ARGUMENTS` pinned to the loaded core. `taskset` execs livepush, so the process is
    /// livepush itself and SIGINT reaches it; give it a `--duration` so it ends if the test dies.
    public func livepush(_ arguments: [String]) throws -> BackgroundProcess {
        try BackgroundProcess("taskset", ["-c", "\(core)", try LivepushBinary.path()] + arguments)
    }

    /// Ends the busy loops; true once they are gone (or were already).
    @discardableResult
    public func lift() -> Bool {
        for burner in burners { burner.kill(signal: SIGKILL) }
        burners.removeAll { $0.wait(timeoutSeconds: 5) != nil }
        return burners.isEmpty
    }
}
