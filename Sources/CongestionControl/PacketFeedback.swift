/// What transport-wide feedback (draft-holmer-rmcat-transport-wide-cc-extensions-01) tells about one
/// packet we sent: when it left, how big it was, and when it arrived (nil: lost). The send time is on
/// the sender's monotonic clock, the arrival time on the receiver's: only differences within one
/// clock are ever compared, so the two need no common origin.
public struct PacketFeedback: Sendable, Equatable {
    /// The transport-wide sequence number, unwrapped (it only grows).
    public var sequenceNumber: Int64
    public var sendTimeNanos: Int64
    /// Bytes on the wire (SRTP included): what the link carried.
    public var sizeBytes: Int
    /// On the receiver's clock; nil when the feedback reports the packet lost.
    public var arrivalTimeNanos: Int64?
    /// The probe cluster the packet left in (``ProbeBitrateEstimator``), nil outside probes.
    public var probeClusterID: Int?

    public init(sequenceNumber: Int64, sendTimeNanos: Int64, sizeBytes: Int, arrivalTimeNanos: Int64?, probeClusterID: Int? = nil) {
        self.sequenceNumber = sequenceNumber
        self.sendTimeNanos = sendTimeNanos
        self.sizeBytes = sizeBytes
        self.arrivalTimeNanos = arrivalTimeNanos
        self.probeClusterID = probeClusterID
    }

    public var isReceived: Bool { arrivalTimeNanos != nil }
}
