/// What a probe cluster says the path carries (libwebrtc's probe bitrate estimator, the probing of
/// draft-ietf-rmcat-gcc-02 §5 left to implementations): the sender sends a cluster of packets at a
/// chosen rate above what it sends now (padding beside the media), and the receiver's arrival
/// times tell whether the path kept up. A link that holds the rate delivers the cluster as fast as
/// it was sent; a narrower one spreads it out (or drops part of it).
///
/// Per cluster: send rate = bytes sent but the last packet's over the first-to-last send span;
/// receive rate = bytes received but the first packet's over the first-to-last arrival span. The
/// result is the lower of the two, and 0.95 × the receive rate when that is under 0.9 × the send
/// rate (the path was saturated: what it delivered is the capacity). A cluster counts once at
/// least ``minimumPackets`` of it arrived; a receive rate far above the send rate (× 2) is a
/// measurement artefact and yields nothing. Lost packets are not in either rate, so a cluster that
/// lost more than ``maximumLossFraction`` of its packets is scaled down by the share that arrived:
/// a drop-tail queue that took the cluster's first packets (or a token bucket's burst allowance)
/// and dropped the rest would otherwise read as a link that kept up.
///
/// Pure and preallocated: a few clusters at a time, overwritten oldest first.
public struct ProbeBitrateEstimator: Sendable {
    public static let minimumPackets = 10
    static let saturatedRatio = 0.9
    static let saturatedUtilization = 0.95
    static let maximumValidRatio = 2.0
    static let maximumSpanNanos: Int64 = 1_000_000_000
    static let clusterSlots = 4
    public static let maximumLossFraction = 0.1

    struct Cluster: Sendable {
        var id = -1
        var firstSendNanos = Int64.max, lastSendNanos = Int64.min, lastSendSize = 0
        var firstArrivalNanos = Int64.max, lastArrivalNanos = Int64.min, firstArrivalSize = 0
        var bytes = 0
        var received = 0
        var lost = 0
    }

    private var clusters = Array(repeating: Cluster(), count: clusterSlots)
    private var nextSlot = 0

    public init() {}

    /// One received packet of probe cluster `clusterID`; returns the cluster's estimate once it has
    /// enough packets (refined with each later one).
    public mutating func add(_ packet: PacketFeedback, clusterID: Int) -> Int? {
        let slot = clusters.firstIndex { $0.id == clusterID } ?? claimSlot(for: clusterID)
        guard let arrival = packet.arrivalTimeNanos else {
            clusters[slot].lost += 1
            return Self.estimate(of: clusters[slot])
        }
        var cluster = clusters[slot]
        if packet.sendTimeNanos < cluster.firstSendNanos { cluster.firstSendNanos = packet.sendTimeNanos }
        if packet.sendTimeNanos >= cluster.lastSendNanos {
            cluster.lastSendNanos = packet.sendTimeNanos
            cluster.lastSendSize = packet.sizeBytes
        }
        if arrival < cluster.firstArrivalNanos {
            cluster.firstArrivalNanos = arrival
            cluster.firstArrivalSize = packet.sizeBytes
        }
        cluster.lastArrivalNanos = max(cluster.lastArrivalNanos, arrival)
        cluster.bytes += packet.sizeBytes
        cluster.received += 1
        clusters[slot] = cluster
        return Self.estimate(of: cluster)
    }

    /// The cluster's estimate from what was added so far (nil: unknown cluster, or not enough).
    public func estimate(clusterID: Int) -> Int? {
        clusters.first { $0.id == clusterID }.flatMap(Self.estimate(of:))
    }

    private mutating func claimSlot(for clusterID: Int) -> Int {
        let slot = nextSlot
        nextSlot = (nextSlot + 1) % clusters.count
        clusters[slot] = Cluster()
        clusters[slot].id = clusterID
        return slot
    }

    static func estimate(of cluster: Cluster) -> Int? {
        guard cluster.received >= minimumPackets else { return nil }
        let sendSpan = cluster.lastSendNanos - cluster.firstSendNanos
        let arrivalSpan = cluster.lastArrivalNanos - cluster.firstArrivalNanos
        guard sendSpan > 0, arrivalSpan > 0, sendSpan <= maximumSpanNanos, arrivalSpan <= maximumSpanNanos else { return nil }
        let sendRate = Double(cluster.bytes - cluster.lastSendSize) * 8 * 1e9 / Double(sendSpan)
        let receiveRate = Double(cluster.bytes - cluster.firstArrivalSize) * 8 * 1e9 / Double(arrivalSpan)
        guard receiveRate <= sendRate * maximumValidRatio else { return nil }
        let arrived = Double(cluster.received) / Double(cluster.received + cluster.lost)
        let lossScale = 1 - arrived > maximumLossFraction ? arrived : 1
        if receiveRate < saturatedRatio * sendRate { return Int(saturatedUtilization * receiveRate * lossScale) }
        return Int(min(sendRate, receiveRate) * lossScale)
    }
}
