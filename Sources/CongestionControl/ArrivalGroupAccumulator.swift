/// Groups packets into the "packet groups" of draft-ietf-rmcat-gcc-02 §5.2 and yields the delay
/// variation between consecutive groups: a video frame leaves as a burst, so comparing single
/// packets would measure the sender's burst, not the path. A group is the packets sent within
/// ``burstNanos`` of its first one; a packet that arrives within ``burstNanos`` of the group's last
/// arrival while its send-to-arrival delay shrank also joins (it was queued behind the group).
///
/// For groups i-1 and i: `d(i) = (t(i) - t(i-1)) - (T(i) - T(i-1))`, arrival minus send delta of
/// their last packets. Positive d means the path held group i longer: a queue is growing.
public struct ArrivalGroupAccumulator: Sendable {
    /// The delay variation between two complete groups.
    public struct Delta: Sendable, Equatable {
        public var sendDeltaNanos: Int64
        public var arrivalDeltaNanos: Int64
        /// When the later group's last packet arrived (receiver clock): the trendline's x axis.
        public var arrivalTimeNanos: Int64
        public var delayVariationNanos: Int64 { arrivalDeltaNanos - sendDeltaNanos }
    }

    struct Group: Sendable {
        var firstSendNanos: Int64
        var lastSendNanos: Int64
        var firstArrivalNanos: Int64
        var lastArrivalNanos: Int64
    }

    public static let defaultBurstNanos: Int64 = 5_000_000
    /// An arrival gap this long (the receiver's clock jumped, or the stream paused) starts afresh.
    public static let resetGapNanos: Int64 = 3_000_000_000
    public let burstNanos: Int64
    private var previous: Group?
    private var current: Group?

    public init(burstNanos: Int64 = defaultBurstNanos) {
        self.burstNanos = burstNanos
    }

    /// Adds one received packet (in send order); returns the delta when it closed a group that has a
    /// predecessor.
    public mutating func add(sendTimeNanos: Int64, arrivalTimeNanos: Int64) -> Delta? {
        guard var group = current else {
            current = Group(firstSendNanos: sendTimeNanos, lastSendNanos: sendTimeNanos,
                            firstArrivalNanos: arrivalTimeNanos, lastArrivalNanos: arrivalTimeNanos)
            return nil
        }
        // Reordered behind the group's start: nothing to learn from it.
        guard sendTimeNanos >= group.firstSendNanos else { return nil }
        if abs(arrivalTimeNanos - group.lastArrivalNanos) > Self.resetGapNanos {
            previous = nil
            current = Group(firstSendNanos: sendTimeNanos, lastSendNanos: sendTimeNanos,
                            firstArrivalNanos: arrivalTimeNanos, lastArrivalNanos: arrivalTimeNanos)
            return nil
        }
        if belongs(sendTimeNanos: sendTimeNanos, arrivalTimeNanos: arrivalTimeNanos, to: group) {
            group.lastSendNanos = max(group.lastSendNanos, sendTimeNanos)
            group.lastArrivalNanos = max(group.lastArrivalNanos, arrivalTimeNanos)
            current = group
            return nil
        }
        var delta: Delta?
        if let previous {
            delta = Delta(sendDeltaNanos: group.lastSendNanos - previous.lastSendNanos,
                          arrivalDeltaNanos: group.lastArrivalNanos - previous.lastArrivalNanos,
                          arrivalTimeNanos: group.lastArrivalNanos)
        }
        previous = group
        current = Group(firstSendNanos: sendTimeNanos, lastSendNanos: sendTimeNanos,
                        firstArrivalNanos: arrivalTimeNanos, lastArrivalNanos: arrivalTimeNanos)
        return delta
    }

    private func belongs(sendTimeNanos: Int64, arrivalTimeNanos: Int64, to group: Group) -> Bool {
        if sendTimeNanos - group.firstSendNanos <= burstNanos { return true }
        // A burst queued on the path: it arrived right behind the group, faster than it was sent.
        let arrivalDelta = arrivalTimeNanos - group.lastArrivalNanos
        let sendDelta = sendTimeNanos - group.lastSendNanos
        return arrivalDelta >= 0 && arrivalDelta <= burstNanos && arrivalDelta - sendDelta < 0
    }
}
