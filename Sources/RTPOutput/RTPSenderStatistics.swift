/// What one RTP stream (one SSRC) sent and what its receivers reported, for status lines, logs and
/// tests; the session's own counters (its gates, RTX, transport-cc) are ``RTPSendSession/Statistics``.
public struct RTPSenderStatistics: Sendable, Equatable {
    public var framesSent = 0
    /// Frames refused because the send queue was full (the encoder was never blocked).
    public var framesDropped = 0
    /// Original RTP packets (retransmissions not included), as the Sender Report counts them.
    public var packetsSent = 0
    /// RTP payload octets of those packets (RFC 3550 §6.4.1's sender's octet count).
    public var payloadOctetsSent = 0
    /// Everything written to the socket: RTP, SRTP tags, retransmissions, RTCP.
    public var bytesSent: Int64 = 0
    public var senderReportsSent = 0

    public var receiverReportsReceived = 0
    /// The latest report's fraction lost (0…1) for our SSRC.
    public var fractionLost: Double?
    public var cumulativeLost: Int?
    /// Interarrival jitter in milliseconds (reported in 90 kHz ticks).
    public var jitterMillis: Double?
    /// From the latest report's LSR/DLSR (RFC 3550 §6.4.1).
    public var roundTripTimeNanos: Int64?
    /// RFC 3611 receiver reference times (RRTR) from a receive-only peer, and the DLRR answers
    /// our reports carried (each report answers the latest one).
    public var receiverReferenceTimesReceived = 0
    public var receiverReferenceTimesAnswered = 0

    public var nacksReceived = 0
    public var packetsRetransmitted = 0
    /// NACKed packets no longer in the send history.
    public var retransmissionsUnavailable = 0
    /// NACKed packets not sent again because a retransmission of them left less than a round trip ago.
    public var retransmissionsTooSoon = 0
    /// PLI and FIR messages for our SSRC.
    public var keyFrameRequestsReceived = 0
    /// Requests the limiter passed on to the encoder.
    public var keyFramesRequested = 0
    /// The latest REMB estimate (RFC draft-alvestrand-rmcat-remb).
    public var estimatedBitrateBitsPerSecond: UInt64?
    /// RTCP datagrams that did not parse or authenticate.
    public var rtcpDropped = 0
    public var lastError: String?

    public init() {}
}
