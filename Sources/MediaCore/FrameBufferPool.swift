import Synchronization

/// A bounded set of reusable ``I420Buffer``s, so the steady-state frame path allocates nothing.
///
/// As in WebRTC's `I420BufferPool`, the pool keeps a strong reference to every buffer it made and
/// hands one out again once the pool's reference is the only one left (every consumer has dropped
/// its frame). When all buffers are still held, ``makeBuffer(width:height:)`` returns nil rather
/// than growing: the caller drops the frame and counts it, which is the back-pressure a slow
/// consumer exerts on a live source.
public final class FrameBufferPool: Sendable {
    /// Most buffers this pool will ever hold at once.
    public let capacity: Int
    private let buffers: Mutex<[I420Buffer]>

    public init(capacity: Int = 8) {
        self.capacity = max(1, capacity)
        buffers = Mutex([])
    }

    /// A buffer of exactly this size whose previous frame nobody holds, or nil when the pool is exhausted.
    ///
    /// A size change (after a camera switch) releases the free buffers of the old size.
    public func makeBuffer(width: Int, height: Int) throws(MediaError) -> I420Buffer? {
        try I420Buffer.validate(width: width, height: height)
        return try buffers.withLock { (buffers: inout [I420Buffer]) throws(MediaError) -> I420Buffer? in
            for index in buffers.indices where isKnownUniquelyReferenced(&buffers[index]) {
                if buffers[index].width == width, buffers[index].height == height {
                    return buffers[index]
                }
            }
            buffers.removeAll { $0.width != width || $0.height != height }
            guard buffers.count < capacity else { return nil }
            let buffer = try I420Buffer(width: width, height: height)
            buffers.append(buffer)
            return buffer
        }
    }

    /// How many buffers exist and how many of them are held outside the pool right now.
    public var usage: (allocated: Int, inUse: Int) {
        buffers.withLock { buffers in
            var inUse = 0
            for index in buffers.indices where !isKnownUniquelyReferenced(&buffers[index]) { inUse += 1 }
            return (buffers.count, inUse)
        }
    }
}
