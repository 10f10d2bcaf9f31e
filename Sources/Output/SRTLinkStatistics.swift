/// What libsrt knows about an SRT output's link (`srt_bstats`), as a plain value: the status line,
/// `/api/status`, `/metrics` and adaptive bitrate read it, and so can a delivery-health check that
/// wants "acknowledged" progress (``acknowledgementsReceived`` advancing while ``sendBufferBytes``
/// stays bounded means the receiver is taking the media).
///
/// Totals count from the output's start and carry on across reconnects; the buffer and RTT fields
/// are the current connection's latest sample.
public struct SRTLinkStatistics: Sendable, Equatable, Codable {
    /// Smoothed round-trip time to the receiver.
    public var rttMilliseconds: Double = 0
    /// Media in the send buffer not yet acknowledged, as time and as bytes: close to the latency
    /// window means packets are about to be dropped as too late.
    public var sendBufferMilliseconds: Int = 0
    public var sendBufferBytes: Int = 0
    /// The agreed latency window of the current connection (the larger of both sides' settings).
    public var latencyMilliseconds: Int = 0
    /// Data packets sent, retransmissions included.
    public var packetsSent: Int64 = 0
    /// Packets the receiver reported lost (NAK), retransmitted, and dropped too late to be useful.
    public var packetsLost: Int64 = 0
    public var packetsRetransmitted: Int64 = 0
    public var packetsDroppedTooLate: Int64 = 0
    /// ACK packets the receiver sent back: grows while the receiver takes the media.
    public var acknowledgementsReceived: Int64 = 0
    /// Payload bytes handed to libsrt (the MPEG-TS stream).
    public var bytesSent: Int64 = 0
    /// libsrt's estimate of the link's capacity.
    public var bandwidthMegabitsPerSecond: Double = 0
    /// Listener: callers turned away in the handshake, mostly for a wrong passphrase (the log names each).
    public var callersRejected = 0

    public init() {}
}
