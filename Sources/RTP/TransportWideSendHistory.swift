/// What a sender remembers of each packet it numbered with a transport-wide sequence number: when
/// it left and how many bytes it was, so transport-cc feedback (``TransportWideCCFeedback``) can be
/// turned into send/arrival pairs for the bandwidth estimator. A ring preallocated at init and
/// indexed by sequence number: recording allocates nothing; old entries are overwritten, and a
/// lookup checks the full (unwrapped) number so an overwritten slot is never mistaken for the one
/// asked about.
public struct TransportWideSendHistory: Sendable {
    /// About 3 s of 5 Mbit/s video in 1200-byte packets: feedback comes every 50–100 ms.
    public static let defaultCapacity = 2048

    /// One remembered packet.
    public struct Entry: Sendable, Equatable {
        public var sequenceNumber: Int64
        public var sendTimeNanos: Int64
        public var sizeBytes: Int
        /// The probe cluster the packet left in, nil outside probes.
        public var probeClusterID: Int?
    }

    private var entries: [Entry]
    private let mask: Int
    /// The newest number given out (unwrapped); -1 before the first.
    public private(set) var highestSequenceNumber: Int64 = -1

    /// `capacity` is rounded up to a power of two.
    public init(capacity: Int = defaultCapacity) {
        var size = 1
        while size < max(capacity, 2) { size <<= 1 }
        entries = Array(repeating: Entry(sequenceNumber: -1, sendTimeNanos: 0, sizeBytes: 0), count: size)
        mask = size - 1
    }

    public var capacity: Int { entries.count }

    /// Numbers the next packet and remembers it; returns the 16-bit number for the wire.
    public mutating func next(sendTimeNanos: Int64, sizeBytes: Int) -> UInt16 {
        highestSequenceNumber += 1
        entries[Int(highestSequenceNumber) & mask] = Entry(sequenceNumber: highestSequenceNumber, sendTimeNanos: sendTimeNanos, sizeBytes: sizeBytes)
        return UInt16(truncatingIfNeeded: highestSequenceNumber)
    }

    /// Corrects the newest packet's size once it is known (SRTP protection adds its tag after numbering).
    public mutating func updateNewest(sizeBytes: Int) {
        guard highestSequenceNumber >= 0 else { return }
        entries[Int(highestSequenceNumber) & mask].sizeBytes = sizeBytes
    }

    /// Moves a packet's send time to when it actually left: a paced packet is numbered when it is
    /// queued and leaves later, and the delay estimate must compare departure with arrival.
    /// `probeClusterID` names the probe cluster it left in.
    public mutating func markSent(_ sequenceNumber: UInt16, atNanos sendTimeNanos: Int64, probeClusterID: Int? = nil) {
        let unwrapped = unwrap(sequenceNumber)
        guard unwrapped >= 0, entries[Int(unwrapped) & mask].sequenceNumber == unwrapped else { return }
        entries[Int(unwrapped) & mask].sendTimeNanos = sendTimeNanos
        entries[Int(unwrapped) & mask].probeClusterID = probeClusterID
    }

    /// The unwrapped number nearest the newest for a 16-bit one from feedback.
    public func unwrap(_ sequenceNumber: UInt16) -> Int64 {
        let distance = Int16(bitPattern: sequenceNumber &- UInt16(truncatingIfNeeded: highestSequenceNumber))
        return highestSequenceNumber + Int64(distance)
    }

    /// The packet with that 16-bit number, if it is still remembered.
    public func entry(for sequenceNumber: UInt16) -> Entry? {
        let unwrapped = unwrap(sequenceNumber)
        guard unwrapped >= 0 else { return nil }
        let entry = entries[Int(unwrapped) & mask]
        return entry.sequenceNumber == unwrapped ? entry : nil
    }
}
