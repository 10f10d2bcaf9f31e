/// A key frame request from the receiver side, reduced to what the limiter needs.
public enum KeyFrameRequest: Sendable, Equatable {
    /// PLI, RFC 4585 §6.3.1.
    case pictureLoss(senderSSRC: UInt32)
    /// FIR, RFC 5104 §4.3.1, with its command sequence number.
    case fullIntra(senderSSRC: UInt32, sequenceNumber: UInt8)

    /// The requests in `packet` that concern `mediaSSRC` (a PLI's media SSRC, a FIR entry's SSRC).
    public static func requests(in packet: RTCPPacket, mediaSSRC: UInt32) -> [KeyFrameRequest] {
        switch packet {
        case .pictureLossIndication(let pli) where pli.mediaSSRC == mediaSSRC:
            return [.pictureLoss(senderSSRC: pli.senderSSRC)]
        case .fullIntraRequest(let fir):
            return fir.entries.filter { $0.ssrc == mediaSSRC }.map {
                .fullIntra(senderSSRC: fir.senderSSRC, sequenceNumber: $0.sequenceNumber)
            }
        default:
            return []
        }
    }
}

/// What to do with a key frame request.
public enum KeyFrameDecision: Sendable, Equatable {
    /// Ask the encoder for a key frame now.
    case requestKeyFrame
    /// A key frame was requested less than the interval ago; it answers this request too.
    case suppressed(untilNanos: Int64)
    /// A FIR with the sequence number already seen from this sender: a retransmission
    /// (RFC 5104 §4.3.1.2), not a new request.
    case duplicateFIR
}

/// Turns PLI/FIR into at most one key frame per interval.
///
/// Receivers repeat PLIs until they see a key frame, and several receivers may ask at once; without
/// a limit a PLI storm makes every frame a key frame and the bitrate explodes. A request inside the
/// interval is dropped rather than queued: the key frame already on its way answers it, and if that
/// one is lost too the receiver asks again. Time is injected (monotonic nanoseconds), so it is pure.
public struct KeyFrameRequestLimiter: Sendable {
    public static let defaultMinimumIntervalNanos: Int64 = 500_000_000

    public let minimumIntervalNanos: Int64
    private var lastRequestNanos: Int64?
    /// Last FIR sequence number per requesting SSRC.
    private var firSequenceNumbers: [UInt32: UInt8] = [:]

    public init(minimumIntervalNanos: Int64 = defaultMinimumIntervalNanos) {
        self.minimumIntervalNanos = minimumIntervalNanos
    }

    public mutating func evaluate(_ request: KeyFrameRequest, nowNanos: Int64) -> KeyFrameDecision {
        if case .fullIntra(let sender, let sequenceNumber) = request {
            if firSequenceNumbers[sender] == sequenceNumber { return .duplicateFIR }
            firSequenceNumbers[sender] = sequenceNumber
        }
        if let last = lastRequestNanos, nowNanos - last < minimumIntervalNanos {
            return .suppressed(untilNanos: last + minimumIntervalNanos)
        }
        lastRequestNanos = nowNanos
        return .requestKeyFrame
    }

    /// Tells the limiter the encoder produced a key frame on its own (scheduled GOP, new
    /// subscriber), so requests right after it are suppressed too.
    public mutating func keyFrameSent(nowNanos: Int64) {
        lastRequestNanos = nowNanos
    }
}
