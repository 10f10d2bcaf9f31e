/// Turns a receiver's RTCP reception reports into *bytes* the receiver has, so an RTP output's
/// delivery health compares like with like (bytes sent against bytes acknowledged, as RTMP does).
///
/// The sender records each original packet it sends on one SSRC (its sequence number and size);
/// the ledger keeps a fixed ring of (extended sequence number, bytes sent through that packet),
/// allocated once, so recording allocates nothing per packet. A report block's "extended highest
/// sequence number received" (RFC 3550 §6.4.1) is looked up in the ring: the bytes through that
/// packet are what the receiver acknowledges.
///
/// The receiver counts its cycles from the first packet *it* saw, which need not be ours, so only
/// the report's low 16 bits are trusted: they name the most recent packet we sent with that number.
/// A report for a packet older than the ring, or not sent at all, is ignored (no false progress);
/// so is a report behind an earlier one.
public struct ReceiverReportLedger: Sendable {
    /// About 10 s of 720p video at 8 Mbit/s (1200-byte payloads): far longer than a report interval.
    public static let defaultCapacity = 8192

    private var sequences: [UInt32]
    private var cumulativeBytes: [Int64]
    private let mask: Int
    /// The next packet's extended sequence number, once one was sent.
    private var highest: UInt32?
    public private(set) var bytesSent: Int64 = 0
    /// Bytes through the packet the receiver last reported, never decreasing.
    public private(set) var bytesAcknowledged: Int64 = 0
    /// Report blocks for this SSRC that named a packet in the ring.
    public private(set) var reportsApplied = 0

    /// `capacity` is rounded up to a power of two that divides 2¹⁶ (at most 32768), so consecutive
    /// sequence numbers stay in consecutive slots across the 16-bit wrap.
    public init(capacity: Int = Self.defaultCapacity) {
        let clamped = min(max(capacity, 2), 1 << 15)
        let size = 1 << (Int.bitWidth - (clamped - 1).leadingZeroBitCount)
        sequences = Array(repeating: 0, count: size)
        cumulativeBytes = Array(repeating: -1, count: size)
        mask = size - 1
    }

    public var capacity: Int { sequences.count }

    /// One original packet (not a retransmission) handed to the socket, with its size on the wire.
    public mutating func recordSent(sequenceNumber: UInt16, bytes: Int) {
        let extended: UInt32
        if let highest {
            // Packets go out in order: the step forward from the last one, past a wrap too.
            extended = highest &+ UInt32(sequenceNumber &- UInt16(truncatingIfNeeded: highest))
        } else {
            extended = UInt32(sequenceNumber)
        }
        highest = extended
        bytesSent += Int64(bytes)
        let slot = Int(extended) & mask
        sequences[slot] = extended
        cumulativeBytes[slot] = bytesSent
    }

    /// Applies one reception report block's extended highest sequence number.
    /// - Returns: whether the acknowledged bytes advanced.
    @discardableResult
    public mutating func acknowledge(extendedHighestSequenceNumber reported: UInt32) -> Bool {
        guard let highest else { return false }
        let behind = UInt16(truncatingIfNeeded: highest) &- UInt16(truncatingIfNeeded: reported)
        let extended = highest &- UInt32(behind)
        let slot = Int(extended) & mask
        guard sequences[slot] == extended, cumulativeBytes[slot] >= 0 else { return false }
        reportsApplied += 1
        guard cumulativeBytes[slot] > bytesAcknowledged else { return false }
        bytesAcknowledged = cumulativeBytes[slot]
        return true
    }
}
