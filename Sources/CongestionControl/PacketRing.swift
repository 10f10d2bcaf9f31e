/// A first-in first-out queue of fixed capacity, its storage allocated once at init: the pacer's
/// per-class queues, where pushing and popping a packet in steady state must not allocate.
/// A push onto a full ring is refused (the caller decides what to drop), never grown.
public struct PacketRing<Element> {
    private var slots: [Element?]
    private var head = 0
    public private(set) var count = 0

    public init(capacity: Int) {
        slots = Array(repeating: nil, count: max(1, capacity))
    }

    public var capacity: Int { slots.count }
    public var isEmpty: Bool { count == 0 }
    public var isFull: Bool { count == slots.count }
    public var first: Element? { count == 0 ? nil : slots[head] }

    /// Appends at the tail; false (nothing stored) when full.
    @discardableResult
    public mutating func push(_ element: Element) -> Bool {
        guard count < slots.count else { return false }
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
}

extension PacketRing: Sendable where Element: Sendable {}
