import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Counts SIGHUPs (the reload request) through a Dispatch signal source instead of letting the
/// default action end the process. The service loop compares the count to the last it handled.
final class HangupWatcher: Sendable {
    private let count = Mutex(0)
    private let source: DispatchSourceSignalBox

    init() {
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        self.source = DispatchSourceSignalBox(source)
        source.setEventHandler { [weak self] in self?.count.withLock { $0 += 1 } }
        source.resume()
    }

    var received: Int { count.withLock { $0 } }
}

/// Holds the signal source for the watcher's lifetime (Dispatch sources are thread-safe).
private final class DispatchSourceSignalBox: @unchecked Sendable {
    let source: any DispatchSourceSignal
    init(_ source: any DispatchSourceSignal) { self.source = source }
    deinit { source.cancel() }
}
