import NIOCore
import Synchronization

/// Hands work from the encoder or audio thread to an output's event loop without ever blocking
/// it: at most `capacity` items wait for the loop; beyond that, new ones are dropped and counted
/// (the caller then usually asks for a key frame, so the receiver recovers at the next IDR).
final class EventLoopHandoff: Sendable {
    let capacity: Int
    private let pending = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Runs `work` on `eventLoop` unless `capacity` items are already waiting; false when dropped.
    func submit(on eventLoop: EventLoop, _ work: @escaping @Sendable () -> Void) -> Bool {
        guard pending.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue <= capacity else {
            pending.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            dropped.wrappingAdd(1, ordering: .relaxed)
            return false
        }
        eventLoop.execute {
            work()
            self.pending.wrappingSubtract(1, ordering: .acquiringAndReleasing)
        }
        return true
    }

    var droppedCount: Int { dropped.load(ordering: .relaxed) }
}
