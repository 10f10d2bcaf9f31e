import MediaCore
import NIOCore
import Output

/// Delivery health, on `eventLoop`: each link check samples the session's counters — bytes written
/// against the server's Acknowledgements — into ``DeliveryHealth``, and replaces a stalled connection.
///
/// livepush asks the server to acknowledge every ``acknowledgementWindow(bitsPerSecond:)`` bytes (an
/// eighth of a second at the configured bitrate; a still scene encodes to far less): servers' own windows (nginx-rtmp's 5 MB) would give one acknowledgement
/// every 20 s at 2 Mbit/s, too sparse for a 5 s stall timeout. A server that sends none on a connection
/// is judged by TCP_INFO's `bytes_acked` instead (its kernel's, or a proxy's, acknowledgements).
extension RTMPOutput {
    static let acknowledgementEvidence = "RTMP acknowledgement"
    static let tcpEvidence = "TCP acknowledgement"
    /// C0+C1 and C2: written before the session's own byte count starts.
    static let handshakeBytes: Int64 = 1 + 1536 + 1536

    /// An eighth of a second at `bitsPerSecond`, within [4 KiB, 2.5 MB]: 16-byte Acknowledgements
    /// several times a second cost nothing, and a stall shows once a window is owed.
    public static func acknowledgementWindow(bitsPerSecond: Int) -> UInt32 {
        UInt32(min(2_500_000, max(4096, bitsPerSecond / 8 / 8)))
    }

    /// What the server may hold before an Acknowledgement is due: a window, plus bytes in flight.
    static let inFlightAllowanceBytes: Int64 = 16_384

    /// Samples the session (with the socket's TCP_INFO) into the health state; a stall closes the
    /// connection with `.stalled`, and the usual reconnect path takes over.
    ///
    /// A server that acknowledges is owed the window livepush asked for (an eighth of a second)
    /// plus what is in flight, and no more, however far apart it acknowledges: livepush itself
    /// never has more than about half a second outstanding (NIO's and the kernel's limits), so a
    /// larger allowance (a server that acknowledges every 2.5 MB) would cover a frozen path for
    /// ever. Such a server's wider steps are honoured only while the kernel's TCP acknowledgements
    /// show it taking the bytes (the second witness) and it is within one of its own steps of them.
    /// A server that has sent no Acknowledgement yet is judged by TCP_INFO alone.
    func judgeDelivery(of session: RTMPSessionHandler, tcp: TCPInfo?, nowNanos: Int64) {
        let asked = session.acknowledgementWindow
            ?? Int64(Self.acknowledgementWindow(bitsPerSecond: configuration.stream.videoBitrateBitsPerSecond))
        let serverStep = max(asked, session.largestAcknowledgementStep)
        let kernelAcknowledged = tcp.map { $0.bytesAcknowledged - Self.handshakeBytes }
        let kernelBefore = session.kernelAcknowledgedAtLastCheck
        session.kernelAcknowledgedAtLastCheck = kernelAcknowledged
        let sample: DeliveryHealth.Sample
        if session.acknowledgementsReceived > 0 || tcp == nil {
            let witnessed = kernelAcknowledged.map { now in
                now > (kernelBefore ?? now) && now - session.bytesAcknowledgedByServer <= serverStep + Self.inFlightAllowanceBytes
            } ?? false
            // Without TCP_INFO (not a socket) there is no second witness: the server's own step counts.
            let allowance = (tcp == nil ? serverStep : asked) + Self.inFlightAllowanceBytes
            sample = DeliveryHealth.Sample(nowNanos: nowNanos, bytesSent: session.bytesWritten,
                                           bytesAcknowledged: session.bytesAcknowledgedByServer, acknowledgementStepBytes: allowance,
                                           framesDropped: 0, evidence: Self.acknowledgementEvidence, witnessedProgress: witnessed)
        } else {
            sample = DeliveryHealth.Sample(nowNanos: nowNanos, bytesSent: session.bytesWritten + Self.handshakeBytes,
                                           bytesAcknowledged: tcp?.bytesAcknowledged ?? 0,
                                           acknowledgementStepBytes: 0, framesDropped: 0, evidence: Self.tcpEvidence)
        }
        let (change, evidence) = shared.withLock { shared -> (DeliveryHealth.State?, String) in
            var sample = sample
            sample.framesDropped = shared.queue.drops.video + shared.queue.drops.audio
            return (shared.health.observe(sample), shared.health.stallDescription)
        }
        switch change {
        case .stalled:
            let kernel = tcp?.notSentBytes.map { "; \(DeliveryHealth.describe(bytes: Int64($0))) not yet sent by the kernel" } ?? ""
            logger.warning("stalled: \(evidence)\(kernel); reconnecting")
            session.fail(.stalled(evidence: evidence))
        case .degraded:
            logger.info("delivery degraded", metadata: ["evidence": "\(evidence)"])
        case .healthy:
            logger.info("delivery healthy again")
        case .reconnecting, .failed, nil:
            break
        }
    }

    /// A publishing connection ended (not by our stop): counted with its cause.
    func deliveryLost(cause: String) {
        let now = MonotonicClock.nowNanos()
        shared.withLock { $0.health.lost(nowNanos: now, cause: cause) }
    }
}
