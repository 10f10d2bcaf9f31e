import Synchronization

/// A bounded set of reusable ``I420Buffer``s, so the steady-state frame path allocates nothing.
///
/// As in WebRTC's `I420BufferPool`, the pool keeps a strong reference to every buffer it made and
/// hands one out again once the pool's reference is the only one left (every consumer has dropped
/// its frame). When all buffers are still held, ``makeBuffer(width:height:)`` returns nil rather
/// than growing: the caller drops the frame and counts it, which is the back-pressure a slow
/// consumer exerts on a live source.
///
/// A hiccup (the encoder opening, a CPU spike) makes the pool grow; once the consumers keep up
/// again the extra buffers sit idle. Free buffers are always handed out lowest first, so the
/// highest one is the first to go idle: after ``idleRequestLimit`` requests without being handed
/// out it is released (at 720p each is 1.4 MB a small board would otherwise keep for good).
public final class FrameBufferPool: Sendable {
    /// Most buffers this pool will ever hold at once.
    public let capacity: Int
    /// Requests after which a buffer nobody asked for is released (150: 5 s at 30 fps).
    public let idleRequestLimit: Int
    private let state: Mutex<State>

    private struct Slot {
        var buffer: I420Buffer
        /// The request number that last handed this buffer out.
        var lastRequest: Int
    }

    private struct State {
        var slots: [Slot] = []
        var requests = 0
    }

    public init(capacity: Int = 8, idleRequestLimit: Int = 150) {
        self.capacity = max(1, capacity)
        self.idleRequestLimit = max(1, idleRequestLimit)
        state = Mutex(State())
    }

    /// A buffer of exactly this size whose previous frame nobody holds, or nil when the pool is exhausted.
    ///
    /// A size change (after a camera switch) releases the free buffers of the old size.
    public func makeBuffer(width: Int, height: Int) throws(MediaError) -> I420Buffer? {
        try I420Buffer.validate(width: width, height: height)
        let idleRequestLimit = idleRequestLimit, capacity = capacity
        return try state.withLock { (state: inout State) throws(MediaError) -> I420Buffer? in
            state.requests += 1
            defer { Self.releaseIdleBuffer(&state, idleRequestLimit: idleRequestLimit) }
            for index in state.slots.indices where isKnownUniquelyReferenced(&state.slots[index].buffer) {
                if state.slots[index].buffer.width == width, state.slots[index].buffer.height == height {
                    state.slots[index].lastRequest = state.requests
                    return state.slots[index].buffer
                }
            }
            state.slots.removeAll { $0.buffer.width != width || $0.buffer.height != height }
            guard state.slots.count < capacity else { return nil }
            let buffer = try I420Buffer(width: width, height: height)
            state.slots.append(Slot(buffer: buffer, lastRequest: state.requests))
            return buffer
        }
    }

    /// Releases the highest buffer when it is free and went unasked for too long (one per request,
    /// so a long-idle pool shrinks one buffer at a time and never below one).
    private static func releaseIdleBuffer(_ state: inout State, idleRequestLimit: Int) {
        guard state.slots.count > 1, let last = state.slots.indices.last,
              state.requests - state.slots[last].lastRequest > idleRequestLimit,
              isKnownUniquelyReferenced(&state.slots[last].buffer) else { return }
        state.slots.removeLast()
    }

    /// How many buffers exist and how many of them are held outside the pool right now.
    public var usage: (allocated: Int, inUse: Int) {
        state.withLock { state in
            var inUse = 0
            for index in state.slots.indices where !isKnownUniquelyReferenced(&state.slots[index].buffer) { inUse += 1 }
            return (state.slots.count, inUse)
        }
    }
}
