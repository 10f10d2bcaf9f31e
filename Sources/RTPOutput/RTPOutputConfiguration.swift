import Codec
import RTP
import SRTP

/// How an ``RTPStreamOutput`` sends: where, protected or not, and the sizes of its buffers.
public struct RTPOutputConfiguration: Sendable {
    public var destination: RTPDestination
    /// SRTP (AES_CM_128_HMAC_SHA1_80) with this key when set; plain RTP otherwise.
    public var keyingMaterial: SRTPKeyingMaterial?
    public var payloadType: UInt8 = 96
    /// Opus audio's payload type (RFC 7587 leaves it dynamic), when the stream has audio.
    public var audioPayloadType: UInt8 = 97
    /// RTP payload bytes per packet (RFC 6184 FU-A splits larger NAL units).
    public var maxPayloadSize = H264Payloader.defaultMaxPayloadSize
    /// Frames waiting for the send loop before new ones are dropped (about 1 s at 30 fps).
    public var queueCapacity = 30
    /// Opus frames (20 ms each) waiting for the send loop before new ones are dropped.
    public var audioQueueCapacity = 50
    /// Bytes the socket may hold in the process once the kernel's send buffer is full (the link
    /// stalled); past it video frames are dropped until it drains to half (``SocketBacklogGate``).
    public var socketBacklogLimitBytes = 64 * 1024
    /// At most this many packets kept for NACK answers; each only for max(1 s, 3 × RTT) after it
    /// was sent (``RTPSendHistory/keepNanos(roundTripNanos:)``).
    public var historyCapacity = RTPSendHistory.defaultCapacity
    /// RFC 3550 §6.2 suggests ~5 s for large sessions; one receiver can afford 1 s, which keeps
    /// RTT and loss figures fresh.
    public var senderReportIntervalNanos: Int64 = 1_000_000_000
    public var keyFrameRequestIntervalNanos = KeyFrameRequestLimiter.defaultMinimumIntervalNanos
    /// Once the receiver sends RTCP receiver reports: no progress in them for this long, beyond
    /// its own report interval, is a stall (`stall_timeout`, default 5 s).
    public var stallTimeoutSeconds: Double = 5
    /// The local UDP port to send from (`local_port`), where receivers send their RTCP back; an
    /// ephemeral one when nil. A receiver that cannot answer the source of the packets (GStreamer's
    /// rtpbin with a `udpsink`) needs it fixed.
    public var localPort: Int?
    /// Each frame's capture time in a SEI (`capture_time`, on by default: docs/capture-time.md).
    public var captureTime: CaptureTimeSignal = .sei

    public init(destination: RTPDestination, keyingMaterial: SRTPKeyingMaterial? = nil) {
        self.destination = destination
        self.keyingMaterial = keyingMaterial
    }
}
