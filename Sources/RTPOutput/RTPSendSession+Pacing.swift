import Codec
import CongestionControl
import NIOCore
import RTP

/// One (protected) RTP datagram waiting in a session's pacer: its route, and its transport-wide
/// number so its send time can be set when it really leaves.
public struct PacedDatagram: Sendable {
    public var datagram: ByteBuffer
    public var route: RTPSendSession.Route
    public var transportSequenceNumber: UInt16?
}

extension RTPSendSession {
    /// A frame refused by the pacer asks for a key frame again after this long without one.
    static let pacerKeyFrameRetryNanos: Int64 = 1_000_000_000

    /// Sends what the pacer's budget allows now; returns when to call again (nil: nothing waits).
    /// The owner calls it from its event loop's timer; sending a frame or a retransmission calls it too.
    @discardableResult
    public func pace(nowNanos: Int64) -> Int64? {
        guard pacer != nil else { return nil }
        while true {
            // Everything that leaves while a probe's padding waits belongs to its cluster.
            let cluster = (pacer?.count(of: .padding) ?? 0) > 0 ? probingClusterID : nil
            guard let (paced, kind) = pacer?.next(nowNanos: nowNanos) else { break }
            if let number = paced.transportSequenceNumber { transportWide?.markSent(number, nowNanos: nowNanos, probeClusterID: cluster) }
            if kind == .padding { probePacketsSent += 1 }
            transmit(paced.datagram, paced.route)
        }
        if probingClusterID != nil, pacer?.count(of: .padding) == 0 {
            probingClusterID = nil
            pacer?.setProbe(bitsPerSecond: nil)
        }
        return pacer?.nextSendNanos(nowNanos: nowNanos)
    }

    /// Sends a probe cluster: about `durationNanos` of packets at `bitsPerSecond`, padding on the
    /// RTX stream (RFC 4588 retransmissions of the most recent video packets, which the receiver
    /// discards as duplicates) beside the media, each with its transport-wide number, so the
    /// feedback shows whether the path carries that rate (``ProbeBitrateEstimator``). False (nothing
    /// sent) without a pacer, RTX, sent video, or while a cluster is still going out.
    @discardableResult
    public func startProbe(bitsPerSecond: Int, durationNanos: Int64, nowNanos: Int64) -> Bool {
        guard pacer != nil, probingClusterID == nil, var rtx, let video, let last = lastVideoSequenceNumber else { return false }
        let wanted = Int(Double(bitsPerSecond) * Double(durationNanos) / 1e9 / 8)
        var padding: [RTPPacket] = []
        var bytes = 0
        // Cycles over the last packets; bounded however small they are.
        for index in 0..<Self.maximumProbePackets where bytes < wanted {
            guard let original = video.sentPacket(sequenceNumber: last &- UInt16(index % Self.probeSourcePackets)) else { continue }
            let copy = rtx.wrap(original)
            bytes += copy.encodedSize
            padding.append(copy)
        }
        self.rtx = rtx
        guard !padding.isEmpty else { return false }
        probingClusterID = nextProbeClusterID
        nextProbeClusterID += 1
        probesStarted += 1
        pacer?.setProbe(bitsPerSecond: bitsPerSecond)
        do {
            try sendRTP(padding, kind: .padding, route: .videoRTP, nowNanos: nowNanos) { self.video?.record(bytesSent: $0) }
        } catch {
            self.video?.record(error: error)
        }
        return true
    }

    /// A probe's padding copies the last this many video packets, round and round.
    static let probeSourcePackets = 16
    static let maximumProbePackets = 1000

    /// When the pacer wants to be called again (nil: nothing waits, or no pacer).
    public func nextPacingNanos(nowNanos: Int64) -> Int64? { pacer?.nextSendNanos(nowNanos: nowNanos) }

    /// Whether a video frame may join the pacer's queue. Past the queue's time bound a frame is
    /// dropped (it would reach the viewer later than the bound allows, and so would every frame
    /// behind it), and delta frames after it are held until a key frame: a delta frame whose
    /// reference is gone decodes to smeared video. The key frame that ends the hold is always let
    /// in. Without a pacer, every frame may.
    func admitsAtPacer(_ frame: EncodedVideoFrame, nowNanos: Int64) -> Bool {
        guard let pacer, !awaitingKeyFrame else { return true }
        if pacerKeyFrameAskedNanos != nil {
            guard frame.isKeyFrame else {
                framesHeldAtPacer += 1
                return false
            }
            pacerKeyFrameAskedNanos = nil
            return true
        }
        guard pacer.isVideoQueueFull(nowNanos: nowNanos), !frame.isKeyFrame else { return true }
        framesDroppedAtPacer += 1
        return false
    }

    /// After a refused frame: true when a key frame should be asked for now (the first refusal,
    /// then once per ``pacerKeyFrameRetryNanos`` while none came).
    func pacerWantsKeyFrame(nowNanos: Int64) -> Bool {
        if let asked = pacerKeyFrameAskedNanos, nowNanos - asked < Self.pacerKeyFrameRetryNanos { return false }
        pacerKeyFrameAskedNanos = nowNanos
        return true
    }
}
