import Foundation
import Synchronization
import Testing
@testable import MediaCore

@Suite struct BoundedWorkerTests {
    @Test func handlesEveryItemInOrderThenFinishes() {
        let handled = Mutex<[Int]>([])
        let finished = Mutex(false)
        let worker = BoundedWorker<Int>(name: ThreadName("test"), capacity: 4,
                                        handle: { item in handled.withLock { $0.append(item) } },
                                        finish: { finished.withLock { $0 = true } })
        // One at a time, each waited for: the worker sleeps between them and must be woken for each.
        for item in 0..<20 {
            #expect(worker.submit(item))
            while worker.statistics.handled <= item { usleep(100) }
        }
        worker.finish()
        #expect(handled.withLock { $0 } == Array(0..<20))
        #expect(finished.withLock { $0 })
        #expect(worker.statistics == BoundedWorker<Int>.Statistics(submitted: 20, handled: 20, dropped: 0))
    }

    /// While the handler is held on the first item, `capacity` more wait and the next is refused
    /// and counted; finishing still handles the waiting ones.
    @Test func refusesAndCountsOnceCapacityItemsWait() {
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let handled = Mutex<[Int]>([])
        let worker = BoundedWorker<Int>(name: ThreadName("test"), capacity: 2, handle: { item in
            if item == 0 { started.signal(); release.wait() }
            handled.withLock { $0.append(item) }
        })
        #expect(worker.submit(0))
        started.wait()
        #expect(worker.submit(1))
        #expect(worker.submit(2))
        #expect(!worker.submit(3))
        release.signal()
        worker.finish()
        #expect(handled.withLock { $0 } == [0, 1, 2])
        #expect(worker.statistics == BoundedWorker<Int>.Statistics(submitted: 4, handled: 3, dropped: 1))
        #expect(!worker.submit(4))
    }

    @Test func finishReturnsWhenNothingWasEverSubmitted() {
        let worker = BoundedWorker<Int>(name: ThreadName("test"), capacity: 1, handle: { _ in })
        worker.finish()
        #expect(worker.statistics == BoundedWorker<Int>.Statistics())
    }
}
