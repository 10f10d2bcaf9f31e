import Foundation

/// A dedicated thread that handles items from a bounded queue, for blocking work downstream of
/// the frame path (file writes, muxing): submitters never wait, and when the worker falls
/// `capacity` items behind, new items are refused and counted instead of piling up.
public final class BoundedWorker<Item: Sendable>: @unchecked Sendable {
    public struct Statistics: Sendable, Equatable {
        public var submitted = 0
        public var handled = 0
        public var dropped = 0
    }

    public let capacity: Int
    /// Guards every `var` below (and `wakeup`'s flag); its wait serves only ``finish()``.
    private let condition = NSCondition()
    /// Sleeps the thread while the ring is empty; a submit wakes it only then.
    private let wakeup = ConsumerWakeup()
    /// A ring of `capacity` slots: `count` items starting at `head`.
    private var ring: [Item?]
    private var head = 0
    private var count = 0
    private var finishing = false
    private var exited = false
    private var stats = Statistics()

    /// Starts the thread, named `name` (``ThreadName``: "rec", "srt"); `handle` runs on it for each
    /// item, `finish` once after the last.
    public init(name: ThreadName, capacity: Int, handle: @escaping @Sendable (Item) -> Void, finish: @escaping @Sendable () -> Void = {}) {
        self.capacity = max(1, capacity)
        ring = Array(repeating: nil, count: self.capacity)
        let thread = Thread { [self] in
            name.applyToCurrentThread()
            while let item = next() {
                handle(item)
                condition.lock()
                stats.handled += 1
                condition.unlock()
            }
            finish()
            condition.lock()
            exited = true
            condition.broadcast()
            condition.unlock()
        }
        thread.start()
    }

    /// Queues an item; false (and counted) when the worker is `capacity` items behind or finished.
    @discardableResult
    public func submit(_ item: Item) -> Bool {
        condition.lock()
        stats.submitted += 1
        guard !finishing, count < capacity else {
            stats.dropped += 1
            condition.unlock()
            return false
        }
        ring[(head + count) % capacity] = item
        count += 1
        wakeup.unlockWaking(condition)
        return true
    }

    /// Handles what is queued, then stops the thread and waits for it.
    public func finish() {
        condition.lock()
        finishing = true
        wakeup.unlockWaking(condition)
        condition.lock()
        while !exited { condition.wait() }
        condition.unlock()
    }

    public var statistics: Statistics {
        condition.lock()
        defer { condition.unlock() }
        return stats
    }

    private func next() -> Item? {
        condition.lock()
        wakeup.sleep(holding: condition) { count > 0 || finishing }
        defer { condition.unlock() }
        guard count > 0 else { return nil }
        let item = ring[head]
        ring[head] = nil
        head = (head + 1) % capacity
        count -= 1
        return item
    }
}
