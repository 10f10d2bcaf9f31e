import Foundation
import Synchronization
import Testing
@testable import MediaCore

@Suite struct ConsumerWakeupTests {
    /// A lock that lets a "producer" in at the worst moment: right after the consumer released it to
    /// sleep, before it sleeps.
    final class InterleavingLock: NSLocking, @unchecked Sendable {
        private let inner = NSLock()
        var afterNextUnlock: (() -> Void)?
        func lock() { inner.lock() }
        func unlock() {
            inner.unlock()
            let hook = afterNextUnlock
            afterNextUnlock = nil
            hook?()
        }
    }

    /// Runs `body` on its own thread; false when it has not returned within `seconds` (a lost wake
    /// leaves it asleep for good).
    private static func returns(within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread { body(); done.signal() }.start()
        return done.wait(timeout: .now() + seconds) == .success
    }

    @Test func aWakeBetweenTheUnlockAndTheSleepIsNotLost() {
        let lock = InterleavingLock()
        let wakeup = ConsumerWakeup()
        let items = Mutex(0)
        let returned = Self.returns(within: 30) {
            lock.lock()
            lock.afterNextUnlock = {
                lock.lock()
                items.withLock { $0 += 1 }
                wakeup.unlockWaking(lock)
            }
            wakeup.sleep(holding: lock) { items.withLock { $0 } > 0 }
            lock.unlock()
        }
        #expect(returned)
    }

    @Test func aSleepingConsumerWakesForTheNextItem() {
        let lock = NSLock()
        let wakeup = ConsumerWakeup()
        let items = Mutex(0)
        let asleep = DispatchSemaphore(value: 0)
        let consumed = DispatchSemaphore(value: 0)
        Thread {
            lock.lock()
            asleep.signal()
            wakeup.sleep(holding: lock) { items.withLock { $0 } > 0 }
            lock.unlock()
            consumed.signal()
        }.start()
        asleep.wait()
        lock.lock()  // held by the consumer until it sleeps
        #expect(wakeup.consumerAsleep)
        items.withLock { $0 += 1 }
        wakeup.unlockWaking(lock)
        #expect(consumed.wait(timeout: .now() + 30) == .success)
    }

    /// A producer wakes only a consumer that said it sleeps, and only once: a busy consumer, or a
    /// second producer before the consumer looked again, costs no wake.
    @Test func onlyTheFirstProducerAfterASleepWakes() {
        let lock = InterleavingLock()
        let wakeup = ConsumerWakeup()
        #expect(!wakeup.consumerAsleep)
        var checked = 0
        lock.lock()
        lock.afterNextUnlock = {
            lock.lock()
            #expect(wakeup.consumerAsleep)
            wakeup.unlockWaking(lock)
            lock.lock()
            #expect(!wakeup.consumerAsleep)
            wakeup.unlockWaking(lock)
        }
        wakeup.sleep(holding: lock) {
            checked += 1
            return checked > 1
        }
        #expect(!wakeup.consumerAsleep)
        lock.unlock()
        #expect(checked == 2)
    }
}
