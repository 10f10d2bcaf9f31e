import Codec
import Synchronization

/// What a video output does after it lost a frame (its queue was full, its socket backed up): a
/// P-frame whose reference is gone decodes to smeared video until the next IDR, so the output sends
/// nothing until a key frame comes, and asks the encoder for one as the gap opens (once per gap;
/// the output's request path rate-limits it as it does PLI).
///
/// RTMP does the same by GOP in its send queue; RTP, WHEP and WHIP share this gate. Call
/// ``admits(_:)`` on the encoder thread for every frame before queueing it, and ``frameLost()``
/// when one could not be queued; the counters can be read from any thread.
public final class KeyFrameGate: Sendable {
    private let waiting = Atomic<Bool>(false)
    private let held = Atomic<Int>(0)

    public init() {}

    /// Whether `frame` may go out: false for every delta frame after a loss, until a key frame.
    public func admits(_ frame: EncodedVideoFrame) -> Bool {
        if frame.isKeyFrame {
            waiting.store(false, ordering: .relaxed)
            return true
        }
        guard waiting.load(ordering: .relaxed) else { return true }
        held.wrappingAdd(1, ordering: .relaxed)
        return false
    }

    /// A frame was lost: hold delta frames back. True when this opens the gap (ask for a key frame now).
    public func frameLost() -> Bool { !waiting.exchange(true, ordering: .relaxed) }

    /// Delta frames not sent because an earlier frame was lost (counted apart from the lost ones).
    public var framesHeldBack: Int { held.load(ordering: .relaxed) }
}
