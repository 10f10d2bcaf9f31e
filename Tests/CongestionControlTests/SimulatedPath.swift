@testable import CongestionControl

/// A sender of video frames through one bottleneck, in simulated time: frames of `sendBitsPerSecond`
/// at 30 fps as bursts of 1200-byte packets; a FIFO link of `capacityBitsPerSecond` with a queue that
/// drops what would wait longer than `queueLimitNanos`, plus `propagationNanos`; every
/// `feedbackIntervalNanos` the receiver reports, in sequence order, every packet that has arrived
/// (or was dropped) by then. Deterministic: `lossEvery` > 0 also loses every n-th packet.
struct SimulatedPath {
    static let packetBytes = 1200
    static let frameIntervalNanos: Int64 = 33_333_333
    static let feedbackIntervalNanos: Int64 = 100_000_000

    var capacityBitsPerSecond: Int
    var sendBitsPerSecond: Int
    var propagationNanos: Int64 = 20_000_000
    var queueLimitNanos: Int64 = 300_000_000
    var lossEvery = 0

    private(set) var nowNanos: Int64 = 0
    private var sequenceNumber: Int64 = 0
    private var linkFreeAtNanos: Int64 = 0
    /// Sent, not yet reported: feedback with the arrival (nil: lost) and when the receiver knew.
    private var inFlight: [(feedback: PacketFeedback, knownAtNanos: Int64)] = []
    private var nextFrameNanos: Int64 = 0

    init(capacityBitsPerSecond: Int, sendBitsPerSecond: Int, lossEvery: Int = 0) {
        self.capacityBitsPerSecond = capacityBitsPerSecond
        self.sendBitsPerSecond = sendBitsPerSecond
        self.lossEvery = lossEvery
    }

    /// Advances one feedback interval; returns that feedback's packets.
    mutating func nextFeedback() -> [PacketFeedback] {
        let end = nowNanos + Self.feedbackIntervalNanos
        while nextFrameNanos < end {
            sendFrame(at: nextFrameNanos)
            nextFrameNanos += Self.frameIntervalNanos
        }
        nowNanos = end
        var reported: [PacketFeedback] = []
        while let first = inFlight.first, first.knownAtNanos <= end {
            reported.append(first.feedback)
            inFlight.removeFirst()
        }
        return reported
    }

    private mutating func sendFrame(at sendNanos: Int64) {
        let frameBytes = sendBitsPerSecond / 8 / 30
        var remaining = frameBytes
        while remaining > 0 {
            let size = min(Self.packetBytes, remaining)
            remaining -= size
            sequenceNumber += 1
            let start = max(sendNanos, linkFreeAtNanos)
            let transmit = Int64(size) * 8 * 1_000_000_000 / Int64(capacityBitsPerSecond)
            let lost = start - sendNanos > queueLimitNanos || (lossEvery > 0 && sequenceNumber % Int64(lossEvery) == 0)
            var arrival: Int64?
            if !lost {
                linkFreeAtNanos = start + transmit
                arrival = linkFreeAtNanos + propagationNanos
            }
            let known = arrival ?? sendNanos + propagationNanos
            // The receiver tells of a loss once a later packet arrived: never before its predecessor.
            let knownAt = max(known, inFlight.last?.knownAtNanos ?? 0)
            inFlight.append((PacketFeedback(sequenceNumber: sequenceNumber, sendTimeNanos: sendNanos, sizeBytes: size,
                                            arrivalTimeNanos: arrival), knownAt))
        }
    }
}
