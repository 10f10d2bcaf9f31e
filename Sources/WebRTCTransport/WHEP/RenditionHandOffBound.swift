/// The bound on WHEP's hand-off queue from the encoder threads to the UDP event loop, kept per
/// rendition: each rendition's frames waiting for the event loop are counted, and dropped, on
/// their own, so a burst of one rendition (a large key frame's encode catching up, a slow
/// event-loop turn while the top rendition floods) never takes the room another rendition's
/// frames need. Pure: the owner holds it under a lock and acts on what it returns.
struct RenditionHandOffBound: Sendable, Equatable {
    /// Frames of one rendition that may wait at once.
    let capacity: Int
    /// By rendition index: frames waiting for the event loop.
    private(set) var pending: [Int]
    /// By rendition index: frames that found their rendition's share full.
    private(set) var dropped: [Int]

    /// `renditions` below 1 count as 1 (a camera always has its one encode).
    init(capacity: Int, renditions: Int) {
        self.capacity = capacity
        pending = Array(repeating: 0, count: max(1, renditions))
        dropped = pending
    }

    /// A frame of `rendition` wants to wait for the event loop: true (counted as waiting) when its
    /// rendition has room, false (counted as dropped) when not. An index the bound does not know
    /// counts as rendition 0, as the key-frame gates do.
    mutating func enqueue(rendition: Int) -> Bool {
        let index = self.index(rendition)
        guard pending[index] < capacity else {
            dropped[index] += 1
            return false
        }
        pending[index] += 1
        return true
    }

    /// The event loop took a frame of `rendition` that ``enqueue(rendition:)`` admitted.
    mutating func dequeue(rendition: Int) {
        let index = self.index(rendition)
        pending[index] = max(0, pending[index] - 1)
    }

    /// Frames dropped over every rendition.
    var totalDropped: Int { dropped.reduce(0, +) }

    private func index(_ rendition: Int) -> Int { pending.indices.contains(rendition) ? rendition : 0 }
}
