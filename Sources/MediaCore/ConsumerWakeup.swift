import Foundation

/// Puts the one thread that drains a queue to sleep while there is nothing for it, and wakes it for
/// the next item: one futex wait and one futex wake per hand-off when it sleeps, none when it is busy.
///
/// A condition variable signalled under the queue's lock costs more on two cores: the woken
/// consumer runs at once on the other core, finds the lock still held, sleeps on it, and the
/// producer's unlock wakes it a second time (BENCHMARKS.md, "CPU beside GStreamer … (part 3)").
/// Here no thread sleeps, or wakes another, while holding the queue's lock.
///
/// Both calls take the queue's own lock, held on entry; the flag they share is the queue's state,
/// guarded by that lock. Each sleep is answered by exactly one wake, and a wake that comes before
/// the consumer sleeps is not lost.
public final class ConsumerWakeup: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    /// The consumer is asleep, or about to be, and no producer has woken it yet. Guarded by the queue's lock.
    private(set) var consumerAsleep = false

    public init() {}

    /// The consumer, holding `lock`: returns (holding it again) once `ready()` is true, sleeping
    /// with `lock` released until a producer's ``unlockWaking(_:)`` whenever it is not.
    public func sleep(holding lock: NSLocking, until ready: () -> Bool) {
        while !ready() {
            consumerAsleep = true
            lock.unlock()
            semaphore.wait()
            lock.lock()
        }
    }

    /// A producer that changed what `ready` reads (queued an item, asked for the end), holding
    /// `lock`: unlocks it, then wakes the consumer if it sleeps. A busy consumer costs no system call.
    public func unlockWaking(_ lock: NSLocking) {
        let wake = consumerAsleep
        consumerAsleep = false
        lock.unlock()
        if wake { semaphore.signal() }
    }
}
