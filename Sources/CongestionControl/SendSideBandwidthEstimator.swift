/// One receiver's available bandwidth, estimated at the sender from transport-wide feedback in the
/// manner of Google Congestion Control (draft-ietf-rmcat-gcc-02, with libwebrtc's trendline
/// filter): a delay-based estimate (packet groups → delay variation → trendline → overuse detector
/// with adaptive threshold → AIMD rate control) and a loss-based one, combined as their minimum.
///
/// Pure: feedback and time come in as values, the estimate goes out; no I/O, no clock. The owner
/// (a WHEP viewer's media sender) feeds it each feedback packet resolved against its send history.
public struct SendSideBandwidthEstimator: Sendable {
    public struct Configuration: Sendable, Equatable {
        /// Where the estimate starts (the rate the sender starts sending at).
        public var initialBitsPerSecond: Int
        public var minimumBitsPerSecond: Int
        public var maximumBitsPerSecond: Int

        public init(initialBitsPerSecond: Int, minimumBitsPerSecond: Int = 100_000, maximumBitsPerSecond: Int) {
            self.maximumBitsPerSecond = max(1, maximumBitsPerSecond)
            self.minimumBitsPerSecond = min(max(1, minimumBitsPerSecond), self.maximumBitsPerSecond)
            self.initialBitsPerSecond = min(max(initialBitsPerSecond, self.minimumBitsPerSecond), self.maximumBitsPerSecond)
        }

        var range: ClosedRange<Int> { minimumBitsPerSecond...maximumBitsPerSecond }
    }

    public static let defaultRoundTripNanos: Int64 = 100_000_000

    public let configuration: Configuration
    private var groups = ArrivalGroupAccumulator()
    private var trendline = TrendlineEstimator()
    private var detector = OveruseDetector()
    private var acknowledged = AcknowledgedBitrateEstimator()
    private var probes = ProbeBitrateEstimator()
    /// The probe cluster whose packets the feedback reported last, until a packet sent after it
    /// is reported: only then is the whole cluster in (a result from its first part alone can read
    /// high: a queue or a token bucket takes the start of a burst at full speed and drops the rest).
    private var openProbeCluster: Int?
    private var delayBased: AIMDRateControl
    private var lossBased: LossBasedEstimator
    private var judged = Array(repeating: Int64(-1), count: judgedCapacity)
    /// Sequence numbers already judged, by slot (a ring, preallocated): feedback repeats none twice,
    /// but a packet reported missing while still queued in the sender's pacer is reported again
    /// once it arrived, so a high-water mark would lose it.
    static let judgedCapacity = 4096

    /// The combined estimate: what the path to this receiver carries now.
    public private(set) var bitsPerSecond: Int
    public var delayBasedBitsPerSecond: Int { delayBased.bitsPerSecond }
    public var lossBasedBitsPerSecond: Int { lossBased.bitsPerSecond }
    public var acknowledgedBitsPerSecond: Int? { acknowledged.bitsPerSecond }
    public var usage: BandwidthUsage { detector.state }
    public var lossFraction: Double { lossBased.lossFraction }
    /// The last probe cluster's result (``ProbeBitrateEstimator``), nil before the first.
    public private(set) var probeBitsPerSecond: Int?
    /// Probe results so far (a new one, even if equal to the last, counts).
    public private(set) var probeResults = 0
    /// Feedback packets judged so far.
    public private(set) var feedbackCount = 0

    public init(configuration: Configuration) {
        self.configuration = configuration
        delayBased = AIMDRateControl(initialBitsPerSecond: configuration.initialBitsPerSecond, bitrateRange: configuration.range)
        lossBased = LossBasedEstimator(initialBitsPerSecond: configuration.maximumBitsPerSecond, bitrateRange: configuration.range)
        bitsPerSecond = configuration.initialBitsPerSecond
    }

    /// The sender changed what it sends (a viewer moved to another rendition): the acknowledged
    /// rate measured so far describes the old stream, and a decrease must not be based on it.
    public mutating func sendRateChanged() {
        acknowledged = AcknowledgedBitrateEstimator()
    }

    /// One feedback packet's results in send order (a pacer numbers packets as they join its queue
    /// and lets audio overtake, so sequence order may differ), received at `nowNanos` (sender clock);
    /// `roundTripNanos` from the receiver reports when known. Returns the new estimate.
    @discardableResult
    public mutating func update(feedback packets: some Sequence<PacketFeedback>, roundTripNanos: Int64?, nowNanos: Int64) -> Int {
        var received = 0, lost = 0
        var probe: Int?
        for packet in packets where judged[Int(packet.sequenceNumber & Int64(Self.judgedCapacity - 1))] != packet.sequenceNumber {
            judged[Int(packet.sequenceNumber & Int64(Self.judgedCapacity - 1))] = packet.sequenceNumber
            if let cluster = packet.probeClusterID {
                if let open = openProbeCluster, open != cluster { probe = probes.estimate(clusterID: open) ?? probe }
                openProbeCluster = cluster
                _ = probes.add(packet, clusterID: cluster)
            } else if let open = openProbeCluster {
                probe = probes.estimate(clusterID: open) ?? probe
                openProbeCluster = nil
            }
            guard let arrival = packet.arrivalTimeNanos else {
                lost += 1
                continue
            }
            received += 1
            acknowledged.add(sizeBytes: packet.sizeBytes, arrivalTimeNanos: arrival)
            if let delta = groups.add(sendTimeNanos: packet.sendTimeNanos, arrivalTimeNanos: arrival) {
                let trend = trendline.update(delta)
                _ = detector.detect(modifiedTrend: trend, sendDeltaNanos: delta.sendDeltaNanos, nowNanos: delta.arrivalTimeNanos)
            }
        }
        guard received + lost > 0 else { return bitsPerSecond }
        feedbackCount += 1
        if let probe {
            // A probe measured what the path carries above what the sender sent: the estimate may
            // start from there (libwebrtc does the same), unless the path is overusing right now.
            probeBitsPerSecond = probe
            probeResults += 1
            if detector.state != .overusing {
                delayBased.raise(toBitsPerSecond: probe)
                lossBased.raise(toBitsPerSecond: probe)
            }
        }
        let delay = delayBased.update(usage: detector.state, acknowledgedBitsPerSecond: acknowledged.bitsPerSecond,
                                      roundTripNanos: roundTripNanos ?? Self.defaultRoundTripNanos, nowNanos: nowNanos)
        let loss = lossBased.update(received: received, lost: lost, delayBasedBitsPerSecond: delay,
                                    acknowledgedBitsPerSecond: acknowledged.bitsPerSecond, nowNanos: nowNanos)
        bitsPerSecond = min(delay, loss)
        return bitsPerSecond
    }
}
