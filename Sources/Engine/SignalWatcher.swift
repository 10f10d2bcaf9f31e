import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Counts the signals a loop acts on (SIGHUP, the reload request; SIGINT and SIGTERM, a stop for
/// `livepush run`) through Dispatch signal sources instead of letting the default action end the
/// process. The loop compares the count to the last it handled.
public final class SignalWatcher: Sendable {
    private let count = SignalCount()
    private let sources: [DispatchSourceSignalBox]

    public init(_ signals: Int32...) {
        let count = count
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { count.value.withLock { $0 += 1 } }
            source.resume()
            return DispatchSourceSignalBox(source)
        }
    }

    /// How many of the watched signals have arrived.
    public var received: Int { count.value.withLock { $0 } }
}

/// The count the signal handlers and the loop share.
private final class SignalCount: Sendable {
    let value = Mutex(0)
}

/// Holds the signal source for the watcher's lifetime (Dispatch sources are thread-safe).
private final class DispatchSourceSignalBox: @unchecked Sendable {
    let source: any DispatchSourceSignal
    init(_ source: any DispatchSourceSignal) { self.source = source }
    deinit { source.cancel() }
}
