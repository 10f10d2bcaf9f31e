import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Notices SIGINT/SIGTERM through Dispatch signal sources instead of dying, so the pipeline can
/// finish cleanly. `sources` is fixed after init; the flag is the only shared state.
final class SignalWatcher: @unchecked Sendable {
    private let flag = Mutex(false)
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32]) {
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            sources.append(source)
        }
        self.sources = sources
        for source in sources {
            source.setEventHandler { [self] in flag.withLock { $0 = true } }
            source.resume()
        }
    }

    var received: Bool { flag.withLock { $0 } }
}
