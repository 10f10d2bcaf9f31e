import Synchronization

/// A bounded queue between a live producer and one consumer loop that keeps the newest elements
/// and drops the oldest when full, counting every drop — the policy of AVFoundation's
/// `alwaysDiscardsLateVideoFrames`: a slow consumer sees fresh frames, never a growing backlog.
public final class BoundedDropQueue<Element: Sendable>: Sendable {
    public let capacity: Int
    /// Elements in arrival order; the consumer's `for await` loop reads them.
    public let elements: AsyncStream<Element>
    private let continuation: AsyncStream<Element>.Continuation
    private let counters = Mutex((dropped: 0, pushed: 0))

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        (elements, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(max(1, capacity)))
    }

    /// Enqueues without blocking; returns false when an older element had to be dropped to make room
    /// (or the queue is finished).
    @discardableResult
    public func push(_ element: Element) -> Bool {
        let accepted: Bool
        switch continuation.yield(element) {
        case .enqueued: accepted = true
        case .dropped, .terminated: accepted = false
        @unknown default: accepted = false
        }
        counters.withLock {
            $0.pushed += 1
            if !accepted { $0.dropped += 1 }
        }
        return accepted
    }

    /// Ends the stream: the consumer's loop finishes after the queued elements.
    public func finish() { continuation.finish() }

    /// Elements dropped because the consumer was behind.
    public var droppedCount: Int { counters.withLock { $0.dropped } }
    public var pushedCount: Int { counters.withLock { $0.pushed } }
}
