import Codec
import CongestionControl
import NIOCore

/// One protected RTP datagram waiting in a peer's pacer, with its transport-wide number so its
/// send time can be set when it really leaves.
public struct PacedDatagram: Sendable {
    public var datagram: ByteBuffer
    public var transportSequenceNumber: UInt16?
}

extension WebRTCMediaSender {
    /// A frame refused by the pacer asks for a key frame again after this long without one.
    static let pacerKeyFrameRetryNanos: Int64 = 1_000_000_000

    /// Sends what the pacer's budget allows now; returns when to call again (nil: nothing waits).
    /// The owner calls it from its event loop's timer; sending a frame or a retransmission calls it too.
    @discardableResult
    public func pace(nowNanos: Int64) -> Int64? {
        guard pacer != nil else { return nil }
        while let (paced, _) = pacer?.next(nowNanos: nowNanos) {
            if let number = paced.transportSequenceNumber { transportWide?.markSent(number, nowNanos: nowNanos) }
            transmit(paced.datagram)
        }
        return pacer?.nextSendNanos(nowNanos: nowNanos)
    }

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
