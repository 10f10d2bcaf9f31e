/// A first-in first-out queue of bounded capacity: the pacer's per-class queues, where pushing and
/// popping a packet in steady state must not allocate. Its storage starts small and doubles, up to
/// `capacity`, the first times the queue gets that long, then is reused: a viewer whose queues stay
/// short (most of them, most of the time) does not carry four rings sized for the worst burst.
/// A push onto a full ring is refused (the caller decides what to drop), never grown past `capacity`.
public struct PacketRing<Element> {
    /// Slots allocated at first (fewer when `capacity` is smaller).
    static var initialSlots: Int { 16 }

    private var slots: [Element?]
    private var head = 0
    public private(set) var count = 0
    /// The most elements it holds.
    public let capacity: Int

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        slots = Array(repeating: nil, count: min(self.capacity, Self.initialSlots))
    }

    /// Slots allocated now (at most ``capacity``).
    public var allocatedSlots: Int { slots.count }
    public var isEmpty: Bool { count == 0 }
    public var isFull: Bool { count == capacity }
    public var first: Element? { count == 0 ? nil : slots[head] }

    /// Appends at the tail; false (nothing stored) when full.
    @discardableResult
    public mutating func push(_ element: Element) -> Bool {
        guard count < capacity else { return false }
        if count == slots.count { grow() }
        slots[(head + count) % slots.count] = element
        count += 1
        return true
    }

    /// Removes and returns the head.
    public mutating func pop() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head]
        slots[head] = nil
        head = (head + 1) % slots.count
        count -= 1
        return element
    }

    /// Twice the slots (at most ``capacity``), the elements in order from the first.
    private mutating func grow() {
        let size = min(capacity, slots.count * 2)
        var grown: [Element?] = []
        grown.reserveCapacity(size)
        for offset in 0..<count { grown.append(slots[(head + offset) % slots.count]) }
        grown.append(contentsOf: repeatElement(nil, count: size - count))
        (slots, head) = (grown, 0)
    }
}

extension PacketRing: Sendable where Element: Sendable {}
